package io.github.delaytask.redis;

import java.util.List;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts under {@code META-INF/delay-task/scripts}, each loaded once. Public for the lock package.
 */
public final class Scripts {

    @SuppressWarnings({ "rawtypes", "unchecked" })
    static final Class<List<String>> STRING_LIST = (Class) List.class;

    private Scripts() {
    }

    public static <T> RedisScript<T> load(String name, Class<T> resultType) {
        return RedisScript.of(new ClassPathResource("META-INF/delay-task/scripts/" + name + ".lua"), resultType);
    }

}
