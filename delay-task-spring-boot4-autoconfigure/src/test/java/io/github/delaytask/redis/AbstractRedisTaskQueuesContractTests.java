package io.github.delaytask.redis;

import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.delaytask.core.AbstractTaskQueuesContractTests;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The queues' contract on {@link RedisTaskQueues}: one connection to the servers of the subclass for the whole class,
 * and keys under a prefix of each test's own, deleted after it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractRedisTaskQueuesContractTests extends AbstractTaskQueuesContractTests {

    private LettuceConnectionFactory factory;

    private StringRedisTemplate redis;

    private RedisKeys keys;

    /** A connection factory to the servers, not yet started; the servers are started now if need be. */
    protected abstract LettuceConnectionFactory connect();

    /** Stop what {@link #connect()} started. */
    protected void stopServers() {
    }

    @Override
    protected TaskQueues createQueues() {
        if (this.factory == null) {
            this.factory = connect();
            this.factory.afterPropertiesSet();
            this.factory.start();
            this.redis = new StringRedisTemplate(this.factory);
        }
        this.keys = new RedisKeys("delay-task-contract-" + UUID.randomUUID().toString().substring(0, 8));
        return new RedisTaskQueues(this.redis, this.keys);
    }

    @Override
    protected void markLoaded(QueueId queue) {
        RecoveryMarkers markers = new RecoveryMarkers(this.redis, this.keys);
        markers.beginRecovery(List.of(queue), "contract");
        markers.finishRecovery(List.of(queue), "contract");
    }

    @Override
    protected void pause(QueueId queue, boolean paused) {
        QueueAdministration administration = new QueueAdministration(this.redis, this.keys);
        if (paused) {
            administration.pause(queue);
        }
        else {
            administration.resume(queue);
        }
    }

    @Override
    protected void dropQueues() {
        if (this.keys != null) {
            // on a Cluster, KEYS asks every master
            Set<String> made = this.redis.keys(this.keys.prefix() + "*");
            made.forEach(this.redis::delete);
        }
    }

    @AfterAll
    void close() {
        if (this.factory != null) {
            this.factory.destroy();
        }
        stopServers();
    }

}
