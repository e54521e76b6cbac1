package io.github.delaytask.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.StreamUtils;

/**
 * The Lua scripts under {@code META-INF/delay-task/scripts}, each loaded once. Public for the lock package.
 */
public final class Scripts {

    @SuppressWarnings({ "rawtypes", "unchecked" })
    static final Class<List<String>> STRING_LIST = (Class) List.class;

    private Scripts() {
    }

    public static <T> RedisScript<T> load(String name, Class<T> resultType) {
        // the text, not the resource: a script made from a resource checks whether the file changed on every call,
        // under a lock, which opens the jar each time and serialises every thread that runs a script
        ClassPathResource resource = new ClassPathResource("META-INF/delay-task/scripts/" + name + ".lua");
        try (InputStream in = resource.getInputStream()) {
            return RedisScript.of(StreamUtils.copyToString(in, StandardCharsets.UTF_8), resultType);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read " + resource, ex);
        }
    }

}
