package io.github.delaytask.autoconfigure;

import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.store.TaskStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.StringUtils;

/**
 * The Redis keys of the configured prefix or, by default, of the task store's id: read from the database on first
 * use, not at start-up.
 */
final class DelayTaskRedisKeys {

    private DelayTaskRedisKeys() {
    }

    static RedisKeys of(DelayTaskProperties properties, ObjectProvider<TaskStore> store) {
        String prefix = properties.getRedis().getKeyPrefix();
        if (StringUtils.hasText(prefix)) {
            return new RedisKeys(prefix);
        }
        return RedisKeys.resolvedOnFirstUse(() -> {
            TaskStore taskStore = store.getIfAvailable();
            return (taskStore != null) ? RedisKeys.DEFAULT_PREFIX + ":" + taskStore.storeId()
                    : RedisKeys.DEFAULT_PREFIX;
        });
    }

}
