package io.github.delaytask.store.mybatis;

import com.baomidou.mybatisplus.core.incrementer.DefaultIdentifierGenerator;
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import com.baomidou.mybatisplus.core.toolkit.GlobalConfigUtils;
import com.baomidou.mybatisplus.extension.plugins.MybatisPlusInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.InnerInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.OptimisticLockerInnerInterceptor;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.session.Configuration;
import org.mybatis.spring.SqlSessionTemplate;

/**
 * Adds the starter's mappers and the optimistic lock to the application's MyBatis configuration, without a
 * {@code @MapperScan} (which would switch off the application's own mapper scanning) and without replacing the
 * application's {@link MybatisPlusInterceptor} (which would drop its pagination). Public for wiring.
 */
public final class MybatisSetup {

    private MybatisSetup() {
    }

    /**
     * The mapper of the given type, added to the configuration first if it is not there yet.
     */
    public static <T> T mapper(SqlSessionTemplate template, Class<T> type) {
        Configuration configuration = template.getConfiguration();
        synchronized (configuration) {
            if (!configuration.hasMapper(type)) {
                configuration.addMapper(type);
            }
        }
        return template.getMapper(type);
    }

    /**
     * The generator MyBatis-Plus uses for {@code ASSIGN_ID}, so that batched inserts get ids of the same kind.
     */
    public static IdentifierGenerator identifierGenerator(Configuration configuration) {
        IdentifierGenerator generator = GlobalConfigUtils.getGlobalConfig(configuration).getIdentifierGenerator();
        return (generator != null) ? generator : DefaultIdentifierGenerator.getInstance();
    }

    /**
     * Have PostgreSQL plan the statements of the starter's mappers at each execution, never from a plan it cached
     * while {@code taskinfo} was small (see the README's PostgreSQL notes): adds an interceptor to the configuration
     * unless it has one. Statements of the application's own mappers are left as they are.
     * @return whether anything was added
     */
    public static boolean installFreshPlans(Configuration configuration) {
        synchronized (configuration) {
            for (Interceptor interceptor : configuration.getInterceptors()) {
                if (interceptor instanceof FreshPlanInterceptor) {
                    return false;
                }
            }
            configuration.addInterceptor(new FreshPlanInterceptor());
            return true;
        }
    }

    /**
     * Make sure updates of {@code @Version} entities check and bump the version: add the given inner interceptor to
     * the application's {@link MybatisPlusInterceptor} if it has no optimistic lock, or add an interceptor of our own
     * when the application has none.
     * @return whether anything was added
     */
    public static boolean installOptimisticLock(Configuration configuration, OptimisticLockerInnerInterceptor locker) {
        MybatisPlusInterceptor existing = null;
        for (Interceptor interceptor : configuration.getInterceptors()) {
            if (interceptor instanceof MybatisPlusInterceptor plus) {
                for (InnerInterceptor inner : plus.getInterceptors()) {
                    if (inner instanceof OptimisticLockerInnerInterceptor) {
                        return false;
                    }
                }
                existing = (existing != null) ? existing : plus;
            }
        }
        if (existing != null) {
            existing.addInnerInterceptor(locker);
        }
        else {
            MybatisPlusInterceptor ours = new MybatisPlusInterceptor();
            ours.addInnerInterceptor(locker);
            configuration.addInterceptor(ours);
        }
        return true;
    }

}
