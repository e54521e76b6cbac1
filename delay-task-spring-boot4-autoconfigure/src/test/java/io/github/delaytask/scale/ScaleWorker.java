package io.github.delaytask.scale;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.testsupport.WorkerProcess;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One application instance of the scale test, run by {@link #main} in a JVM of its own: the 64
 * {@link PairListeners}, with the starter's beans observed but not changed: its lock records every try, its queues
 * count the claims, and {@link WorkerStats} writes the counts to the database.
 */
@Configuration(proxyBeanMethods = false)
@Import({ ScaleApp.class, PairListeners.class })
class ScaleWorker {

    /** What a worker prints once its listeners run. */
    static final String READY = "scale-worker ready";

    public static void main(String[] args) {
        WorkerProcess.exitWhenParentDies();
        new SpringApplicationBuilder(ScaleWorker.class).web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .run(args);
        System.out.println(READY);
    }

    @Bean
    static BeanPostProcessor recordLockTries(ObjectProvider<DataSource> dataSource, Environment environment) {
        String workerId = environment.getRequiredProperty(PairListeners.WORKER_ID);
        return new BeanPostProcessor() {

            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                return (bean instanceof DistributedLocks locks) ? new RecordingLocks(locks, dataSource, workerId)
                        : bean;
            }

        };
    }

    @Bean
    CountingTaskQueues countingTaskQueues(StringRedisTemplate redis, Environment environment) {
        return new CountingTaskQueues(redis, new RedisKeys(environment.getRequiredProperty(
                "delay-task.redis.key-prefix")));
    }

    @Bean
    RunRecorder runRecorder(DataSource dataSource, Environment environment) {
        return new RunRecorder(environment.getRequiredProperty(PairListeners.WORKER_ID), dataSource);
    }

    @Bean
    WorkerStats workerStats(CountingTaskQueues queues, HikariDataSource dataSource, Environment environment) {
        return new WorkerStats(environment.getRequiredProperty(PairListeners.WORKER_ID), queues, dataSource);
    }

}
