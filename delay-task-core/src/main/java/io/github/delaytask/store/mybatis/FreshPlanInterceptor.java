package io.github.delaytask.store.mybatis;

import java.sql.Connection;
import java.sql.Statement;

import com.baomidou.mybatisplus.core.toolkit.PluginUtils;
import org.apache.ibatis.executor.statement.StatementHandler;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.plugin.Intercepts;
import org.apache.ibatis.plugin.Invocation;
import org.apache.ibatis.plugin.Signature;

/**
 * Has PostgreSQL plan the statements of the starter's own mappers at each execution ({@link FreshPlans}); the
 * application's statements, in the same MyBatis configuration, are left as they are.
 */
@Intercepts(@Signature(type = StatementHandler.class, method = "prepare", args = { Connection.class, Integer.class }))
final class FreshPlanInterceptor implements Interceptor {

    private static final String[] OWN_NAMESPACES = { TaskInfoMapper.class.getName() + ".",
            TaskInfoLogMapper.class.getName() + "." };

    @Override
    public Object intercept(Invocation invocation) throws Throwable {
        Object prepared = invocation.proceed();
        // the driver first: reading the handler's statement id takes reflection
        if (prepared instanceof Statement statement && FreshPlans.appliesTo(statement)
                && ours((StatementHandler) invocation.getTarget())) {
            FreshPlans.apply(statement);
        }
        return prepared;
    }

    private static boolean ours(StatementHandler handler) {
        String id = PluginUtils.mpStatementHandler(handler).mappedStatement().getId();
        for (String namespace : OWN_NAMESPACES) {
            if (id.startsWith(namespace)) {
                return true;
            }
        }
        return false;
    }

}
