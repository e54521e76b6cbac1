package io.github.delaytask.autoconfigure;

import io.github.delaytask.PayloadCodec;
import io.github.delaytask.json.Jackson3PayloadCodec;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The codec of task payloads on the application's Jackson 3 (Spring Boot 4's own {@code JsonMapper}) mapper, so that payloads are written as the
 * application writes JSON. Both lines write the same JSON.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(ObjectMapper.class)
class DelayTaskJsonConfiguration {

    @Bean
    @ConditionalOnMissingBean
    PayloadCodec delayTaskPayloadCodec(ObjectProvider<ObjectMapper> mapper) {
        return new Jackson3PayloadCodec(mapper.getIfUnique(JsonMapper::new));
    }

}
