package io.github.delaytask.autoconfigure;

import java.time.Clock;

import javax.sql.DataSource;

import com.baomidou.mybatisplus.extension.plugins.inner.OptimisticLockerInnerInterceptor;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.PayloadCodec;
import io.github.delaytask.core.DefaultDelayTaskService;
import io.github.delaytask.core.RetryPolicy;
import io.github.delaytask.core.ServiceSettings;
import io.github.delaytask.core.TaskBroker;
import io.github.delaytask.json.Jackson2PayloadCodec;
import io.github.delaytask.listener.DelayTaskListenerAnnotationBeanPostProcessor;
import io.github.delaytask.listener.DelayTaskListenerEndpointRegistry;
import io.github.delaytask.listener.ListenerSettings;
import io.github.delaytask.lock.RedisDistributedLocks;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.TaskQueues;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.scheduling.JobSettings;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.store.mybatis.MybatisSetup;
import io.github.delaytask.store.mybatis.MybatisTaskStore;
import io.github.delaytask.store.mybatis.TaskInfoLogMapper;
import io.github.delaytask.store.mybatis.TaskInfoMapper;
import org.mybatis.spring.SqlSessionTemplate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Auto-configuration of delay-task: the task service, its store on MyBatis-Plus, its queues on Redis, the
 * listener containers and the reload and refresh jobs.
 * <p>
 * A {@link Clock} bean, if the application has one, is the clock of delays and back-offs; due-ness itself is decided
 * by the Redis and database clocks.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration",
        "com.baomidou.mybatisplus.autoconfigure.MybatisPlusAutoConfiguration" })
@ConditionalOnClass({ StringRedisTemplate.class, SqlSessionTemplate.class, OptimisticLockerInnerInterceptor.class,
        ObjectMapper.class })
@ConditionalOnBean({ StringRedisTemplate.class, SqlSessionTemplate.class })
@ConditionalOnProperty(prefix = "delay-task", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(DelayTaskProperties.class)
public class DelayTaskAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public OptimisticLockerInnerInterceptor optimisticLockerInnerInterceptor() {
        return new OptimisticLockerInnerInterceptor();
    }

    @Bean
    @ConditionalOnMissingBean
    public TaskStore delayTaskStore(SqlSessionTemplate sqlSessionTemplate,
            ObjectProvider<OptimisticLockerInnerInterceptor> lockers,
            ObjectProvider<PlatformTransactionManager> transactionManager) {
        MybatisSetup.installOptimisticLock(sqlSessionTemplate.getConfiguration(),
                lockers.getIfAvailable(OptimisticLockerInnerInterceptor::new));
        DataSource dataSource = sqlSessionTemplate.getConfiguration().getEnvironment().getDataSource();
        TransactionTemplate transactions = new TransactionTemplate(
                transactionManager.getIfUnique(() -> new DataSourceTransactionManager(dataSource)));
        return new MybatisTaskStore(MybatisSetup.mapper(sqlSessionTemplate, TaskInfoMapper.class),
                MybatisSetup.mapper(sqlSessionTemplate, TaskInfoLogMapper.class), transactions,
                new JdbcTemplate(dataSource), MybatisSetup.identifierGenerator(sqlSessionTemplate.getConfiguration()));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(DataSource.class)
    public DelayTaskDataSourceScriptDatabaseInitializer delayTaskDataSourceScriptDatabaseInitializer(
            DataSource dataSource, DelayTaskProperties properties) {
        // not the SqlSessionTemplate's DataSource: Boot makes JDBC users wait for initializers, which would be a cycle
        return new DelayTaskDataSourceScriptDatabaseInitializer(dataSource, properties.getJdbc());
    }

    /**
     * The keys when {@link DelayTaskLockAutoConfiguration} is left out; it normally provides them.
     */
    @Bean
    @ConditionalOnMissingBean
    public RedisKeys delayTaskRedisKeys(DelayTaskProperties properties, ObjectProvider<TaskStore> store) {
        return DelayTaskRedisKeys.of(properties, store);
    }

    @Bean
    @ConditionalOnMissingBean
    public TaskQueues delayTaskQueues(StringRedisTemplate redisTemplate, RedisKeys keys) {
        return new TaskQueues(redisTemplate, keys);
    }

    /**
     * The lock of the jobs when {@link DelayTaskLockAutoConfiguration} is left out; it normally provides it.
     */
    @Bean
    @ConditionalOnMissingBean
    public DistributedLocks delayTaskLocks(StringRedisTemplate redisTemplate, RedisKeys keys,
            ObjectProvider<Clock> clock) {
        return new RedisDistributedLocks(redisTemplate, keys, clock.getIfUnique(Clock::systemUTC));
    }

    @Bean
    @ConditionalOnMissingBean
    public TaskBroker delayTaskBroker(TaskStore store, TaskQueues queues, DelayTaskProperties properties,
            ObjectProvider<Clock> clock) {
        return new TaskBroker(store, queues, properties.getLease(), clock.getIfUnique(Clock::systemUTC));
    }

    @Bean
    @ConditionalOnMissingBean
    public PayloadCodec delayTaskPayloadCodec(ObjectProvider<ObjectMapper> objectMapper) {
        return new Jackson2PayloadCodec(objectMapper.getIfUnique(ObjectMapper::new));
    }

    @Bean
    @ConditionalOnMissingBean
    public DelayTaskService delayTaskService(TaskStore store, TaskQueues queues, TaskBroker broker,
            DelayTaskProperties properties, PayloadCodec codec, ObjectProvider<Clock> clock) {
        ServiceSettings settings = new ServiceSettings(properties.getPreloadWindow(),
                properties.getMaxParametersSize().toBytes(), properties.getJdbc().isGroupAdds(), properties.getRedis().getHandOffTimeout(),
                retryPolicy(properties));
        return new DefaultDelayTaskService(store, queues, broker, codec, clock.getIfUnique(Clock::systemUTC),
                settings);
    }

    @Bean
    @ConditionalOnMissingBean
    public DelayTaskJobs delayTaskJobs(TaskStore store, TaskQueues queues, DistributedLocks locks,
            DelayTaskProperties properties) {
        return new DelayTaskJobs(store, queues, locks, new JobSettings(properties.getPreloadWindow(),
                properties.getReloadInterval(), properties.getRefreshInterval()));
    }

    @Bean
    @ConditionalOnMissingBean
    public static DelayTaskListenerAnnotationBeanPostProcessor delayTaskListenerAnnotationBeanPostProcessor() {
        return new DelayTaskListenerAnnotationBeanPostProcessor();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "delay-task.listener", name = "enabled", havingValue = "true",
            matchIfMissing = true)
    public DelayTaskListenerEndpointRegistry delayTaskListenerEndpointRegistry(
            DelayTaskListenerAnnotationBeanPostProcessor processor, TaskBroker broker, PayloadCodec codec,
            DelayTaskProperties properties) {
        DelayTaskProperties.Listener listener = properties.getListener();
        ListenerSettings settings = new ListenerSettings(listener.getConcurrency(), listener.getPrefetch(),
                listener.getBatchSize(), listener.getPollInterval(), properties.getShutdownTimeout(),
                properties.getLease(), retryPolicy(properties));
        return new DelayTaskListenerEndpointRegistry(processor, broker, codec, settings);
    }

    private static RetryPolicy retryPolicy(DelayTaskProperties properties) {
        DelayTaskProperties.Retry retry = properties.getRetry();
        return new RetryPolicy(retry.getMaxAttempts(), retry.getInitialDelay(), retry.getMultiplier(),
                retry.getMaxDelay());
    }

}
