package io.github.delaytask.json;

import java.lang.reflect.Type;

import io.github.delaytask.PayloadCodec;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.cfg.DateTimeFeature;

/**
 * {@link PayloadCodec} on a Jackson 3 {@link ObjectMapper}, the application's own {@code JsonMapper} on Spring Boot
 * 4. Public for wiring.
 * <p>
 * Payloads keep Jackson 2's defaults where Jackson 3 changed them in ways that show in the JSON, so that the Boot 3
 * and Boot 4 lines write the same JSON and read each other's: properties of classes in declaration order rather than
 * sorted, {@code java.util.Date} and {@code Calendar} in UTC with {@code +00:00} rather than {@code Z}, and a
 * {@code null} or missing value read as {@code 0} or {@code false} into a primitive rather than refused.
 */
public final class Jackson3PayloadCodec implements PayloadCodec {

    private final ObjectMapper mapper;

    public Jackson3PayloadCodec(ObjectMapper mapper) {
        this.mapper = withJackson2Defaults(mapper);
    }

    /** A copy of the mapper, the application's own untouched. */
    private static ObjectMapper withJackson2Defaults(ObjectMapper mapper) {
        return mapper.rebuild()
            .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .enable(DateTimeFeature.WRITE_UTC_AS_OFFSET)
            .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .build();
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
