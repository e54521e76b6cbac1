package io.github.delaytask.store.mybatis;

import java.sql.Connection;
import java.sql.Statement;

import org.apache.ibatis.executor.statement.StatementHandler;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.plugin.Intercepts;
import org.apache.ibatis.plugin.Invocation;
import org.apache.ibatis.plugin.Signature;

/**
 * Has PostgreSQL plan the statements of the starter's mappers at each execution ({@link FreshPlans}). It sits in
 * the starter's own MyBatis configuration ({@link MybatisSetup}), which holds no statement of the application's.
 */
@Intercepts(@Signature(type = StatementHandler.class, method = "prepare", args = { Connection.class, Integer.class }))
final class FreshPlanInterceptor implements Interceptor {

    @Override
    public Object intercept(Invocation invocation) throws Throwable {
        Object prepared = invocation.proceed();
        if (prepared instanceof Statement statement && FreshPlans.appliesTo(statement)) {
            FreshPlans.apply(statement);
        }
        return prepared;
    }

}
