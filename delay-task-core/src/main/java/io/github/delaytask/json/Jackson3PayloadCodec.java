package io.github.delaytask.json;

import java.lang.reflect.Type;

import io.github.delaytask.PayloadCodec;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;

/**
 * {@link PayloadCodec} on a Jackson 3 {@link ObjectMapper}, the application's own {@code JsonMapper} on Spring Boot
 * 4. Public for wiring.
 */
public final class Jackson3PayloadCodec implements PayloadCodec {

    private final ObjectMapper mapper;

    public Jackson3PayloadCodec(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public byte[] write(Object payload) {
        try {
            return this.mapper.writeValueAsBytes(payload);
        }
        catch (JacksonException ex) {
            throw new IllegalArgumentException("Cannot write a " + payload.getClass().getName() + " as JSON", ex);
        }
    }

    @Override
    public Reader reader(Type type) {
        JavaType javaType = this.mapper.constructType(type);
        return (parameters) -> {
            try {
                return this.mapper.readValue(parameters, javaType);
            }
            catch (JacksonException ex) {
                // not Jackson's message, which quotes the parameters
                TokenStreamLocation location = ex.getLocation();
                throw new IllegalArgumentException(ReadFailure.describe(javaType.toString(), ex,
                        (location != null) ? location.getLineNr() : -1,
                        (location != null) ? location.getColumnNr() : -1));
            }
        };
    }

}
