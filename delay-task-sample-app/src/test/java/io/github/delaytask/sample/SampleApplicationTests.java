package io.github.delaytask.sample;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * The sample's scenarios on the embedded Redis and H2 the app starts by itself.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
        // A prefix of its own, so that a run never sees tasks of another run should it share a Redis.
        properties = "delay-task.redis.key-prefix=sample-test-${random.uuid}")
class SampleApplicationTests extends AbstractSampleApplicationTests {

}
