package io.github.delaytask.autoconfigure;

import io.github.delaytask.PayloadCodec;
import io.github.delaytask.json.Jackson2PayloadCodec;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The codec of task payloads on the application's Jackson 2 (Spring Boot 3's own {@code ObjectMapper}) mapper, so that payloads are written as the
 * application writes JSON. Both lines write the same JSON.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(ObjectMapper.class)
class DelayTaskJsonConfiguration {

    @Bean
    @ConditionalOnMissingBean
    PayloadCodec delayTaskPayloadCodec(ObjectProvider<ObjectMapper> mapper) {
        return new Jackson2PayloadCodec(mapper.getIfUnique(ObjectMapper::new));
    }

}
