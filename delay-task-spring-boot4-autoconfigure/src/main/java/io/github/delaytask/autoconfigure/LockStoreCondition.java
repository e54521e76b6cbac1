package io.github.delaytask.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Whether {@code delay-task.lock.store} is one value: a negation {@code @ConditionalOnProperty} cannot say, which the
 * Redis lock needs (any store but the database).
 */
abstract class LockStoreCondition extends SpringBootCondition {

    private static final String PROPERTY = "delay-task.lock.store";

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        DelayTaskProperties.Store store = Binder.get(context.getEnvironment())
            .bind(PROPERTY, DelayTaskProperties.Store.class)
            .orElse(DelayTaskProperties.Store.AUTO);
        return matches(store) ? ConditionOutcome.match(PROPERTY + " is " + store)
                : ConditionOutcome.noMatch(PROPERTY + " is " + store);
    }

    abstract boolean matches(DelayTaskProperties.Store store);

    /** The locks may be in Redis: the store is not the database. */
    static final class OnRedis extends LockStoreCondition {

        @Override
        boolean matches(DelayTaskProperties.Store store) {
            return store != DelayTaskProperties.Store.DATABASE;
        }

    }

    /** The locks are in the database, as chosen. */
    static final class OnDatabase extends LockStoreCondition {

        @Override
        boolean matches(DelayTaskProperties.Store store) {
            return store == DelayTaskProperties.Store.DATABASE;
        }

    }

    /** The locks may be in the database: the store is not Redis. */
    static final class NotRedis extends LockStoreCondition {

        @Override
        boolean matches(DelayTaskProperties.Store store) {
            return store != DelayTaskProperties.Store.REDIS;
        }

    }

    /** The locks are where there is a store: Redis if the application has one, the database otherwise. */
    static final class OnAuto extends LockStoreCondition {

        @Override
        boolean matches(DelayTaskProperties.Store store) {
            return store == DelayTaskProperties.Store.AUTO;
        }

    }

}
