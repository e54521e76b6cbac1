package io.github.delaytask.test;

import io.github.delaytask.DelayTaskService;
import io.github.delaytask.PayloadCodec;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.Outcomes;
import io.github.delaytask.core.RetryPolicy;
import io.github.delaytask.core.TaskContexts;
import io.github.delaytask.listener.DelayTaskListenerAnnotationBeanPostProcessor;
import io.github.delaytask.listener.ManualDispatcher;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.store.TaskStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link DelayTaskTester} bean, on the class path of tests that depend on
 * {@code delay-task-test}; the same on Spring Boot 3.5 and 4.
 */
@AutoConfiguration(afterName = "io.github.delaytask.autoconfigure.DelayTaskAutoConfiguration")
@ConditionalOnBean({ DelayTaskService.class, TaskStore.class, Claims.class, Outcomes.class, DelayTaskJobs.class })
public class DelayTaskTestAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DelayTaskTester delayTaskTester(DelayTaskService service, TaskStore store, DelayTaskJobs jobs,
            DelayTaskListenerAnnotationBeanPostProcessor listeners, Claims claims, Outcomes outcomes,
            PayloadCodec codec, RetryPolicy retryPolicy, ObjectProvider<TaskContexts> contexts) {
        return new DelayTaskTester(service, store, jobs, new ManualDispatcher(listeners, claims, outcomes, codec,
                retryPolicy, contexts.getIfAvailable(() -> TaskContexts.NONE)));
    }

}
