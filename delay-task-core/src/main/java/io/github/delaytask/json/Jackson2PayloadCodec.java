package io.github.delaytask.json;

import java.io.IOException;
import java.lang.reflect.Type;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.delaytask.PayloadCodec;

/**
 * {@link PayloadCodec} on a Jackson 2 {@link ObjectMapper}, the application's own on Spring Boot 3. Public for
 * wiring.
 */
public final class Jackson2PayloadCodec implements PayloadCodec {

    private final ObjectMapper mapper;

    public Jackson2PayloadCodec(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public byte[] write(Object payload) {
        try {
            return this.mapper.writeValueAsBytes(payload);
        }
        catch (JsonProcessingException ex) {
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
            catch (JsonProcessingException ex) {
                // not Jackson's message, which quotes the parameters
                JsonLocation location = ex.getLocation();
                throw new IllegalArgumentException(ReadFailure.describe(javaType.toString(), ex,
                        (location != null) ? location.getLineNr() : -1,
                        (location != null) ? location.getColumnNr() : -1));
            }
            catch (IOException ex) {
                throw new IllegalArgumentException(ReadFailure.describe(javaType.toString(), ex, -1, -1));
            }
        };
    }

}
