package io.github.delaytask.autoconfigure;

import java.util.concurrent.CountDownLatch;

import io.github.delaytask.DistributedLock;
import io.github.delaytask.testsupport.ImportRedisAutoConfiguration;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The instance that {@link DistributedLockHolderCrashTests} kills: a JVM of its own that takes the lock
 * {@value #LOCK} through {@code @DistributedLock} and never lets go, until it is killed. Its arguments are Spring
 * properties ({@code --spring.data.redis.port=...}).
 */
@Configuration(proxyBeanMethods = false)
@ImportRedisAutoConfiguration
@ImportAutoConfiguration({ PropertyPlaceholderAutoConfiguration.class, DelayTaskLockAutoConfiguration.class })
public class LockHolderApplication {

    static final String LOCK = "crash-test";

    public static void main(String[] args) throws InterruptedException {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(LockHolderApplication.class)
            .web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .run(args);
        context.getBean(Holder.class).holdForever();
    }

    @Bean
    Holder holder() {
        return new Holder();
    }

    static class Holder {

        @DistributedLock(name = LOCK, lockAtMostFor = "${crash-test.lock-at-most-for}")
        public void holdForever() throws InterruptedException {
            System.out.println("Holding lock " + LOCK);
            new CountDownLatch(1).await();
        }

    }

}
