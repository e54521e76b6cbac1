package io.github.delaytask.scale;

import java.util.Optional;

import io.github.delaytask.DistributedLocks;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The test's own application, which adds the tasks: it has no listener, and a lock that is never granted keeps it
 * out of the reload, refresh and purge jobs, so that all the work the report counts is the workers'.
 */
@Configuration(proxyBeanMethods = false)
@Import(ScaleApp.class)
class ScaleProducer {

    @Bean
    DistributedLocks neverGrantedLocks() {
        return (name, lockAtMostFor) -> Optional.empty();
    }

}
