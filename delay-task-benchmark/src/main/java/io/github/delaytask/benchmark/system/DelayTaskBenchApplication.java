package io.github.delaytask.benchmark.system;

import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The application delay-task runs in, as a user's would: auto-configuration, two listeners that do nothing but
 * tell the benchmark, and (when the benchmark asks) the data source wrapped to record its statements. The
 * {@link TaskSink} and the {@link StatementCapture} are registered by the one who starts it.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
class DelayTaskBenchApplication {

    static final int TASK_TYPE = 1;

    static final int BACKLOG_TYPE = 2;

    @Bean
    Listeners benchmarkListeners(ObjectProvider<TaskSink> sink) {
        return new Listeners(sink.getIfAvailable(() -> (kind, executeTime) -> {
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
