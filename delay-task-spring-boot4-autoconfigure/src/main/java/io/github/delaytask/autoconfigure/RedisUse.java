package io.github.delaytask.autoconfigure;

import org.springframework.boot.autoconfigure.condition.AllNestedConditions;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

/**
 * Whether the starter uses Redis: {@code delay-task.redis.enabled} is not {@code false} and the application has a
 * Redis connection ({@code StringRedisTemplate}). Otherwise the database alone does its work.
 */
final class RedisUse {

    private static final String TEMPLATE = "org.springframework.data.redis.core.StringRedisTemplate";

    private RedisUse() {
    }

    /** Redis is used. */
    static final class InUse extends AllNestedConditions {

        InUse() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBooleanProperty(name = "delay-task.redis.enabled", matchIfMissing = true)
        static final class Enabled {

        }

        @ConditionalOnBean(type = TEMPLATE)
        static final class Present {

        }

    }

    /**
     * Redis is not used: turned off, or the application has none. The exact complement of {@link InUse}, so that a
     * value the binder takes as false ({@code off}, {@code no}) chooses one of the two as well.
     */
    static final class NotInUse extends NoneNestedConditions {

        NotInUse() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @Conditional(InUse.class)
        static final class Used {

        }

    }

    /** Why Redis is not used, for the log: the property, or no Redis connection. */
    static String whyNot(Environment environment) {
        return Boolean.TRUE.equals(Binder.get(environment).bind("delay-task.redis.enabled", Boolean.class)
            .orElse(true)) ? "the application has no Redis connection (no StringRedisTemplate bean)"
                    : "delay-task.redis.enabled is false";
    }

}
