package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What MySQL and MariaDB do unlike the other databases, and what the starter must not let show, on the real
 * MariaDB: business keys under the table's collation, REPEATABLE READ snapshots, and the session's time zone.
 */
@Tag("real-services")
class MariaDbSemanticsTests {

    private static final int TYPE = 9;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeEach
    void createBackend() {
        this.backend = TestBackend.mariaDb();
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(Transactions.class)
            .withPropertyValues("delay-task.listener.enabled=false");
    }

    @AfterEach
    void closeBackend() {
        this.backend.close();
    }

    @Test
    void businessKeysThatTheDefaultCollationTakesForEqualAreDifferentKeys() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            for (List<String> pair : List.of(List.of("order:abc", "order:AbC"), List.of("k", "k "),
                    List.of("cafe", "café"))) {
                long first = service.addTask(DelayTask.builder(TYPE).bizKey(pair.get(0)).build());
                long second = service.addTask(DelayTask.builder(TYPE).bizKey(pair.get(1)).build());
                assertThat(second).as("the task of '%s' beside that of '%s'", pair.get(1), pair.get(0))
                    .isNotEqualTo(first);
                assertThat(service.findTask(second).orElseThrow().bizKey()).isEqualTo(pair.get(1));
                assertThat(service.addTask(DelayTask.builder(TYPE).bizKey(pair.get(1)).build())).isEqualTo(second);
                assertThat(service.cancelTask(pair.get(1))).isTrue();
                assertThat(service.findTask(first).orElseThrow().status()).isEqualTo(io.github.delaytask.TaskStatus.SCHEDULED);
            }
        });
    }

    @Test
    void theSecondOfTwoTransactionsAddingOneKeyGetsTheFirstsTaskOnceItCommitsUnderRepeatableRead() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
            CountDownLatch firstAdded = new CountDownLatch(1);
            CountDownLatch secondStarted = new CountDownLatch(1);
            CompletableFuture<Long> first = CompletableFuture.supplyAsync(() -> transactions.execute((status) -> {
                long id = service.addTask(DelayTask.builder(TYPE).bizKey("order:7:timeout").build());
                firstAdded.countDown();
                await(secondStarted);
                return id;
            }));
            CompletableFuture<Long> second = CompletableFuture.supplyAsync(() -> transactions.execute((status) -> {
                await(firstAdded);
                // a read first: REPEATABLE READ takes the transaction's snapshot now, before the first commits
                service.findTask(1L);
                secondStarted.countDown();
                return service.addTask(DelayTask.builder(TYPE).bizKey("order:7:timeout").build());
            }));
            assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo(first.get(30, TimeUnit.SECONDS));
        });
    }

    @Test
    void theDatabaseClockIsRightInBothHalvesOfTheAutumnFoldOfASessionTimeZone() {
        // 02:20 local time happens twice on 2024-10-27 in Berlin: at 00:20 UTC (CEST) and at 01:20 UTC (CET)
        for (long epochSeconds : new long[] { 1_729_988_400L, 1_729_992_000L }) {
            this.runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=1",
                    "spring.datasource.hikari.connection-init-sql=SET time_zone = 'Europe/Berlin', timestamp = "
                            + epochSeconds)
                .run((context) -> assertThat(context.getBean(TaskStore.class).currentTimeMillis())
                    .isEqualTo(epochSeconds * 1000));
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        }
        catch (InterruptedException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Transactions {

        @Bean
        TransactionTemplate transactionTemplate(PlatformTransactionManager manager) {
            return new TransactionTemplate(manager);
        }

    }

}
