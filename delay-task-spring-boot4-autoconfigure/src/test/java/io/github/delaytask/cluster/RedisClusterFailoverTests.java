package io.github.delaytask.cluster;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.autoconfigure.DelayTaskRedisClusterAutoConfiguration;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.cluster.LocalRedis.FailOver;
import io.github.delaytask.redis.WakeUps;
import io.github.delaytask.testsupport.BootLine;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The end-to-end checks and a fail-over against a Redis Cluster of three masters and three replicas, configured
 * with nothing but {@code spring.data.redis.cluster.nodes}.
 */
@Tag("cluster")
class RedisClusterFailoverTests extends AbstractRedisFailoverTests {

    /** A queue on another master than {@link #VICTIM}'s, for the second fail-over. */
    static final int SECOND_VICTIM = 7;

    @Override
    LocalRedis startRedis() {
        return LocalRedisCluster.start();
    }

    @Test
    @Order(1)
    void queuesOfTheseTestsLiveOnEveryMasterAndEachMasterRunsTheirScripts() {
        LocalRedisCluster cluster = (LocalRedisCluster) this.redis;
        Set<RedisProcess> masters = Arrays.stream(RECORDED)
            .mapToObj((type) -> cluster.masterOf(SlotHash.getSlot(hashTag(type))))
            .collect(Collectors.toSet());
        assertThat(masters).hasSize(3);
        assertThat(cluster.masterOf(SlotHash.getSlot(hashTag(SECOND_VICTIM))))
            .isNotEqualTo(cluster.masterOf(SlotHash.getSlot(hashTag(VICTIM))));
        Map<RedisProcess, Long> before = cluster.scriptCalls(masters);
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            Set<Long> ids = Arrays.stream(RECORDED)
                .mapToObj((type) -> service.addTask(DelayTask.builder(type).build()))
                .collect(Collectors.toSet());
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.keySet().containsAll(ids));
        });
        Map<RedisProcess, Long> after = cluster.scriptCalls(masters);
        assertThat(masters).allSatisfy((master) -> assertThat(after.get(master)).isGreaterThan(before.get(master)));
    }

    @Test
    @Order(2)
    void aMasterThatStopsAnsweringHoldsUpNoQueueOnTheOtherMasters() {
        LocalRedisCluster cluster = (LocalRedisCluster) this.redis;
        RedisProcess stalled = cluster.masterOf(SlotHash.getSlot(hashTag(VICTIM)));
        Set<Integer> onStalled = Arrays.stream(RECORDED)
            .filter((type) -> cluster.masterOf(SlotHash.getSlot(hashTag(type))) == stalled)
            .boxed()
            .collect(Collectors.toSet());
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            long dueAt = System.currentTimeMillis() + 1500;
            Map<Long, Integer> types = new ConcurrentHashMap<>();
            for (int i = 0; i < 3; i++) {
                for (int type : RECORDED) {
                    types.put(service.addTask(DelayTask.builder(type).executeAt(Instant.ofEpochMilli(dueAt)).build()),
                            type);
                }
            }
            // the victim's master answers nothing for twice the command timeout, from before the tasks are due
            this.redis.onMasterOf(hashTag(VICTIM), (commands) -> commands.clientPause(4000));
            await().atMost(Duration.ofSeconds(15)).until(() -> listeners.runs.keySet().containsAll(types.keySet()));
            System.out.println("[stall] " + getClass().getSimpleName() + ": lateness of the tasks on the other "
                    + "masters " + listeners.lateness(dueAt, dueAt, (type) -> !onStalled.contains(type))
                    + "; on the stalled master " + listeners.lateness(dueAt, dueAt, onStalled::contains));
            // a claim round that waited for the stalled master waited the 2 s command timeout
            types.forEach((id, type) -> {
                if (!onStalled.contains(type)) {
                    assertThat(listeners.runs.get(id).get(0) - dueAt)
                        .as("ms late, task %d of a queue on another master", id)
                        .isLessThan(1000);
                }
            });
            // due 1.5 s into the 4 s pause, they run once it ends: the claim that timed out ran all the same when
            // the master answered, and its tasks would otherwise have waited for their 5 s lease
            types.forEach((id, type) -> {
                if (onStalled.contains(type)) {
                    assertThat(listeners.runs.get(id).get(0) - dueAt)
                        .as("ms late, task %d of a queue on the stalled master", id)
                        .isLessThan(5000);
                }
            });
        });
    }

    @Test
    @Order(6)
    void aMasterThatStopsAnsweringHasItsQueuesClaimedFromTheDatabaseWhileTheOthersStayOnRedis() {
        LocalRedisCluster cluster = (LocalRedisCluster) this.redis;
        RedisProcess stalled = cluster.masterOf(SlotHash.getSlot(hashTag(VICTIM)));
        Set<QueueId> onStalled = Arrays.stream(RECORDED)
            .filter((type) -> cluster.masterOf(SlotHash.getSlot(hashTag(type))) == stalled)
            .mapToObj((type) -> new QueueId(type, 0))
            .collect(Collectors.toSet());
        // every queue a listener claims from, asked before the pause, when every master still tells its view
        Set<QueueId> listenedOnStalled = IntStream.concat(Arrays.stream(RECORDED), IntStream.of(FLAKY))
            .filter((type) -> cluster.masterOf(SlotHash.getSlot(hashTag(type))) == stalled)
            .mapToObj((type) -> new QueueId(type, 0))
            .collect(Collectors.toSet());
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            Claims claims = context.getBean(Claims.class);
            long dueAt = System.currentTimeMillis() + 1500;
            Map<Long, Integer> types = new ConcurrentHashMap<>();
            for (int i = 0; i < 3; i++) {
                for (int type : RECORDED) {
                    types.put(service.addTask(DelayTask.builder(type).executeAt(Instant.ofEpochMilli(dueAt)).build()),
                            type);
                }
            }
            // far longer than the 2 s command timeout: the stalled master's tasks can only run from the database
            long pausedAt = System.currentTimeMillis();
            this.redis.onMasterOf(hashTag(VICTIM), (commands) -> commands.clientPause(8000));
            await().atMost(Duration.ofSeconds(7)).until(() -> listeners.runs.keySet().containsAll(types.keySet()));
            long allRan = System.currentTimeMillis();
            System.out.println("[stall] database dispatch: every task ran " + (allRan - pausedAt) + " ms into an "
                    + "8 s pause of one master; lateness on it " + listeners.lateness(dueAt, dueAt,
                            (type) -> onStalled.contains(new QueueId(type, 0))));
            assertThat(allRan - pausedAt).as("ms into the pause").isLessThan(8000);
            Set<QueueId> fromDatabase = claims.dispatchedFromDatabase();
            assertThat(fromDatabase).as("queues claimed from the database").containsAll(onStalled);
            assertThat(listenedOnStalled).as("queues of the stalled master").containsAll(fromDatabase);
            types.keySet().forEach((id) -> assertThat(listeners.runs.get(id)).as("runs of task %d", id).hasSize(1));
            await().atMost(Duration.ofSeconds(20)).until(() -> claims.dispatchedFromDatabase().isEmpty());
            types.keySet().forEach((id) -> assertThat(listeners.runs.get(id)).as("runs of task %d", id).hasSize(1));
        });
    }

    @Test
    @Order(4)
    void aMasterThatStopsAnsweringWhileItsQueueIsClaimedAloneHoldsUpNoLaterTaskOfAnotherMaster() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            long victimDue = System.currentTimeMillis() + 1500;
            long otherDue = victimDue + 300;
            long victims = service.addTask(DelayTask.builder(VICTIM).executeAt(Instant.ofEpochMilli(victimDue)).build());
            long other = service
                .addTask(DelayTask.builder(SECOND_VICTIM).executeAt(Instant.ofEpochMilli(otherDue)).build());
            // both in Redis before the pause, so that only the claims meet the stalled master
            await().atMost(Duration.ofSeconds(1)).until(() -> inRedis(VICTIM, victims) && inRedis(SECOND_VICTIM, other));
            // from before the victim's task is due, for twice the command timeout: the round at its due time claims
            // its queue alone, as no other queue is due then
            this.redis.onMasterOf(hashTag(VICTIM), (commands) -> commands.clientPause(4000));
            await().atMost(Duration.ofSeconds(15)).until(() -> listeners.runs.containsKey(other)
                    && listeners.runs.containsKey(victims));
            long late = listeners.runs.get(other).get(0) - otherDue;
            System.out.println("[stall, lone claim] " + getClass().getSimpleName() + ": the other master's task ran "
                    + late + " ms late; the stalled master's " + (listeners.runs.get(victims).get(0) - victimDue)
                    + " ms");
            // a round that waited for the stalled master alone waited the 2 s command timeout
            assertThat(late).as("ms late, the task of a queue on another master").isLessThan(1000);
        });
    }

    @Test
    @Order(5)
    void aMasterThatStopsAnsweringHoldsUpNoRescheduleOfTheQueuesOnTheOtherMasters() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            Instant inAMinute = Instant.now().plus(Duration.ofMinutes(1));
            long victims = service.addTask(DelayTask.builder(VICTIM).executeAt(inAMinute).build());
            long other = service.addTask(DelayTask.builder(SECOND_VICTIM).executeAt(inAMinute).build());
            await().atMost(Duration.ofSeconds(1)).until(() -> inRedis(VICTIM, victims) && inRedis(SECOND_VICTIM, other));
            // the victim's master answers nothing for twice the command timeout, from before both reschedules
            this.redis.onMasterOf(hashTag(VICTIM), (commands) -> commands.clientPause(4000));
            long dueAt = System.currentTimeMillis() + 300;
            assertThat(service.rescheduleTask(victims, Instant.ofEpochMilli(dueAt))).isTrue();
            assertThat(service.rescheduleTask(other, Instant.ofEpochMilli(dueAt))).isTrue();
            await().atMost(Duration.ofSeconds(15)).until(() -> listeners.runs.containsKey(other)
                    && listeners.runs.containsKey(victims));
            long late = listeners.runs.get(other).get(0) - dueAt;
            System.out.println("[stall, reschedule] " + getClass().getSimpleName() + ": the other master's "
                    + "rescheduled task ran " + late + " ms late; the stalled master's "
                    + (listeners.runs.get(victims).get(0) - dueAt) + " ms");
            // a hand-off that made the changes one by one waited the 2 s command timeout for the stalled master's
            assertThat(late).as("ms late, the rescheduled task of a queue on another master").isLessThan(1000);
        });
    }

    private boolean inRedis(int type, long taskId) {
        String key = this.keyPrefix + ":{" + hashTag(type) + "}:future";
        return this.redis.onMasterOf(hashTag(type), (commands) -> commands.zscore(key, Long.toString(taskId))) != null;
    }

    @Test
    @Order(3)
    void aMasterThatStopsAnsweringHoldsUpNoNewTaskOfTheQueuesOnTheOtherMasters() {
        LocalRedisCluster cluster = (LocalRedisCluster) this.redis;
        RedisProcess stalled = cluster.masterOf(SlotHash.getSlot(hashTag(VICTIM)));
        Set<Integer> onStalled = Arrays.stream(RECORDED)
            .filter((type) -> cluster.masterOf(SlotHash.getSlot(hashTag(type))) == stalled)
            .boxed()
            .collect(Collectors.toSet());
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> context.getBean(WakeUps.class).listening());
            // the victim's master answers nothing for twice the command timeout, from before the adds
            this.redis.onMasterOf(hashTag(VICTIM), (commands) -> commands.clientPause(4000));
            long from = System.currentTimeMillis() + 300;
            Map<Long, Integer> types = new ConcurrentHashMap<>();
            Map<Long, Long> due = new ConcurrentHashMap<>();
            for (int i = 0; i < 3; i++) {
                for (int type : RECORDED) {
                    long at = System.currentTimeMillis() + 300;
                    long id = service.addTask(DelayTask.builder(type).executeAt(Instant.ofEpochMilli(at)).build());
                    types.put(id, type);
                    due.put(id, at);
                }
            }
            long to = System.currentTimeMillis() + 300;
            await().atMost(Duration.ofSeconds(15)).until(() -> listeners.runs.keySet().containsAll(types.keySet()));
            System.out.println("[stall, hand-off] " + getClass().getSimpleName() + ": lateness of the new tasks on "
                    + "the other masters " + listeners.lateness(from, to, (type) -> !onStalled.contains(type))
                    + "; on the stalled master " + listeners.lateness(from, to, onStalled::contains));
            // a hand-off that waited for the stalled master waited the 2 s command timeout, and then for its pause
            types.forEach((id, type) -> {
                if (!onStalled.contains(type)) {
                    assertThat(listeners.runs.get(id).get(0) - due.get(id))
                        .as("ms late, new task %d of a queue on another master", id)
                        .isLessThan(1000);
                }
            });
        });
    }

    @Test
    @Order(FAIL_OVER_ORDER + 1)
    void withoutTopologyRefreshWritesForAFailedMasterKeepFailingWhileTheStartersDefaultRecovers() {
        ApplicationContextRunner clients = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.REDIS,
                    DelayTaskRedisClusterAutoConfiguration.class))
            .withPropertyValues(this.redis.properties().toArray(new String[0]))
            .withPropertyValues("spring.data.redis.timeout=1s");
        String key = "delay-task-test-probe:{" + hashTag(SECOND_VICTIM) + "}";
        clients.run((starterDefault) -> clients
            .withPropertyValues("spring.data.redis.lettuce.cluster.refresh.adaptive=false")
            .run((bootDefault) -> {
                StringRedisTemplate withRefresh = starterDefault.getBean(StringRedisTemplate.class);
                StringRedisTemplate withoutRefresh = bootDefault.getBean(StringRedisTemplate.class);
                assertThat(writes(withRefresh, key)).isTrue();
                assertThat(writes(withoutRefresh, key)).isTrue();
                FailOver failOver = this.redis.failOver(hashTag(SECOND_VICTIM));
                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                    .until(() -> writes(withRefresh, key));
                Duration recovery = Duration.between(failOver.killedAt(), Instant.now());
                await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(15))
                    .until(() -> !writes(withoutRefresh, key));
                System.out.printf("[fail-over] %s: killed %s; replica promoted after %d ms; a client with the "
                        + "starter's topology refresh wrote to its slots again after %d ms; one without still "
                        + "failed %d ms after the kill%n", getClass().getSimpleName(), failOver.killed(),
                        failOver.promotion().toMillis(), recovery.toMillis(),
                        Duration.between(failOver.killedAt(), Instant.now()).toMillis());
            }));
    }

}
