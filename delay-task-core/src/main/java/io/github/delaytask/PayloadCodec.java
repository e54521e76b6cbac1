package io.github.delaytask;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;

/**
 * Writes task payloads into parameters ({@link DelayTask#getPayload()}) and reads parameters back as the parameter
 * type of a {@link DelayTaskListener} method. The starter provides one on the application's own Jackson mapper
 * (Jackson 2 on Spring Boot 3, Jackson 3 on Spring Boot 4, both writing the same JSON); define a bean of this type to
 * use another library.
 */
public interface PayloadCodec {

    /**
     * The payload as bytes to store.
     * @throws IllegalArgumentException if the payload cannot be written
     */
    byte[] write(Object payload);

    /**
     * A reader of parameters as the given type, made once per listener method.
     * @param type the generic type of the listener method's parameter
     */
    Reader reader(Type type);

    /**
     * Reads parameters as one type.
     */
    @FunctionalInterface
    interface Reader {

        /**
         * The parameters as the reader's type.
         * @throws IllegalArgumentException if they cannot be read; its message must not quote the parameters, which
         * may hold personal data and end up in logs and in the task's last error
         */
        @Nullable Object read(byte[] parameters);

    }

}
