package io.github.delaytask.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A web app that uses delay-task for order timeouts and for retries with growing back-off.
 * <p>
 * Run it with {@code mvn -pl delay-task-sample-app spring-boot:run}: it starts an embedded Redis and an in-memory H2
 * database of its own. The {@code real} profile ({@code application-real.yml}) uses a running Redis and PostgreSQL,
 * MySQL or MariaDB instead. Scheduling is on for the nightly {@code OrderReport}, a {@code @DistributedLock} job.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }

}
