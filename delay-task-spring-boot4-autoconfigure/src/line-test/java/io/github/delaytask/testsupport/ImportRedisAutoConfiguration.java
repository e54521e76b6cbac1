package io.github.delaytask.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Imports Spring Boot 4's auto-configuration of Redis, for the applications the tests start in JVMs of their
 * own; each Boot line's test sources have an annotation of this name.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ImportAutoConfiguration({ DataRedisAutoConfiguration.class })
public @interface ImportRedisAutoConfiguration {

}
