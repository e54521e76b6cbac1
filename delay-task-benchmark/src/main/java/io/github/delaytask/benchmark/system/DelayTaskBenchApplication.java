package io.github.delaytask.benchmark.system;

import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The application delay-task runs in, as a user's would: auto-configuration, listeners that do nothing but tell the
 * benchmark, and (when the benchmark asks) the data source wrapped to record or count its statements. The
 * {@link TaskSink}, the {@link StatementCapture} and the {@link StatementCounter} are registered by the one who
 * starts it. {@value #LISTENERS} chooses the listeners: {@code kinds} (the default: one per {@link TaskKind#TASK}
 * and {@link TaskKind#BACKLOG}), {@code queues} (the 64 of {@link QueueListeners}) or {@code none}.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
class DelayTaskBenchApplication {

    static final int TASK_TYPE = 1;

    static final int BACKLOG_TYPE = 2;

    static final String LISTENERS = "benchmark.listeners";

    @Bean
    @ConditionalOnProperty(name = LISTENERS, havingValue = "kinds", matchIfMissing = true)
    Listeners benchmarkListeners(ObjectProvider<TaskSink> sink) {
        return new Listeners(sink.getIfAvailable(() -> (kind, executeTime) -> {
        }));
    }

    @Bean
    @ConditionalOnProperty(name = LISTENERS, havingValue = "queues")
    QueueListeners benchmarkQueueListeners(ObjectProvider<TaskSink> sink) {
        return new QueueListeners(sink.getIfAvailable(() -> (kind, executeTime) -> {
        }));
    }

    @Bean
    static BeanPostProcessor benchmarkStatementCapture(ObjectProvider<StatementCapture> capture) {
        return new BeanPostProcessor() {

            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                StatementCapture statements = capture.getIfAvailable();
                return (bean instanceof DataSource dataSource && statements != null) ? statements.wrap(dataSource)
                        : bean;
            }

        };
    }

    @Bean
    static BeanPostProcessor benchmarkStatementCounting(ObjectProvider<StatementCounter> counter) {
        return new BeanPostProcessor() {

            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                StatementCounter statements = counter.getIfAvailable();
                return (bean instanceof DataSource dataSource && statements != null) ? statements.wrap(dataSource)
                        : bean;
            }

        };
    }

    static class Listeners {

        private final TaskSink sink;

        Listeners(TaskSink sink) {
            this.sink = sink;
        }

        @DelayTaskListener(taskType = TASK_TYPE)
        public void task(DelayTask task) {
            this.sink.handled(TaskKind.TASK, task.getExecuteTime());
        }

        @DelayTaskListener(taskType = BACKLOG_TYPE)
        public void backlog(DelayTask task) {
            this.sink.handled(TaskKind.BACKLOG, task.getExecuteTime());
        }

    }

}
