package io.github.delaytask.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.PayloadCodec;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.testsupport.BootLine;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Tests for {@link DelayTaskListenerAnnotationBeanPostProcessor} and the methods it finds.
 */
class DelayTaskListenerAnnotationBeanPostProcessorTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withBean(DelayTaskListenerAnnotationBeanPostProcessor.class);

    private final PayloadCodec codec = BootLine.defaultPayloadCodec();

    @Test
    void findsAnnotatedMethodsOfAPlainBean() {
        this.contextRunner.withBean("orders", OrderListeners.class).run((context) -> {
            List<ListenerEndpoint> endpoints = context.getBean(DelayTaskListenerAnnotationBeanPostProcessor.class)
                .endpoints();
            assertThat(endpoints).extracting(ListenerEndpoint::queue)
                .containsExactlyInAnyOrder(new QueueId(1, 0), new QueueId(2, 5), new QueueId(3, 0),
                        new QueueId(4, 0), new QueueId(6, 0));
        });
    }

    @Test
    void passesEachKindOfParameterItsMethodAsksFor() throws Exception {
        OrderListeners listeners = new OrderListeners();
        DelayTask task = new DelayTask(1, 0, 0, "{\"id\":7,\"status\":\"UNPAID\"}".getBytes(StandardCharsets.UTF_8));
        task.setTaskId(99L);
        for (String method : List.of("task", "text", "bytes", "order", "none")) {
            invoker(listeners, method).invoke(task);
        }
        assertThat(listeners.calls).containsExactly("task:99", "text:{\"id\":7,\"status\":\"UNPAID\"}", "bytes:26",
                "order:Order[id=7, status=UNPAID]", "none");
    }

    @Test
    void findsAndInvokesAMethodThroughAJdkProxy() {
        this.contextRunner.withUserConfiguration(JdkProxyConfiguration.class).run((context) -> {
            Object bean = context.getBean("proxied");
            assertThat(AopUtils.isJdkDynamicProxy(bean)).isTrue();
            ListenerEndpoint endpoint = onlyEndpoint(context.getBean(DelayTaskListenerAnnotationBeanPostProcessor.class));
            new ListenerMethodInvoker(endpoint, this.codec).invoke(new DelayTask(8, 0, 0, null));
            assertThat(context.getBean(JdkProxyConfiguration.class).target.calls).containsExactly("handled");
        });
    }

    @Test
    void findsAndInvokesAMethodThroughACglibProxy() {
        this.contextRunner.withUserConfiguration(CglibProxyConfiguration.class).run((context) -> {
            Object bean = context.getBean("proxied");
            assertThat(AopUtils.isCglibProxy(bean)).isTrue();
            ListenerEndpoint endpoint = onlyEndpoint(context.getBean(DelayTaskListenerAnnotationBeanPostProcessor.class));
            new ListenerMethodInvoker(endpoint, this.codec).invoke(new DelayTask(8, 0, 0, null));
            assertThat(context.getBean(CglibProxyConfiguration.class).target.calls).containsExactly("handled");
        });
    }

    @Test
    void aMethodWithTwoParametersFailsStartUpNamingTheBeanAndMethod() {
        this.contextRunner.withBean("badListener", TwoParameters.class)
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("'badListener'")
                .hasMessageContaining(TwoParameters.class.getName() + ".handle")
                .hasMessageContaining("takes 2 parameters"));
    }

    @Test
    void twoListenersForTheSameTypeAndPriorityFailStartUpNamingBoth() {
        this.contextRunner.withBean("first", SameQueueOne.class)
            .withBean("second", SameQueueTwo.class)
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("task type 11 priority 0")
                .hasMessageContaining(SameQueueOne.class.getName() + ".handle")
                .hasMessageContaining(SameQueueTwo.class.getName() + ".handle"));
    }

    @Test
    void aNegativeTaskTypeFailsStartUp() {
        this.contextRunner.withBean("negative", NegativeType.class)
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("taskType -1"));
    }

    @Test
    void aNameFromAPlaceholderNamesTheTaskTypeOfEveryPriorityAndShowsInItsMessages() {
        this.contextRunner.withBean("named", Named.class)
            .withPropertyValues("names.orders=order-timeout")
            .run((context) -> {
                DelayTaskListenerAnnotationBeanPostProcessor processor = context
                    .getBean(DelayTaskListenerAnnotationBeanPostProcessor.class);
                assertThat(processor.taskTypeNames()).containsExactly(entry(21, "order-timeout"));
                assertThat(processor.endpoints()).extracting(ListenerEndpoint::describe)
                    .containsExactlyInAnyOrder(
                            "'named' method " + Named.class.getName() + ".timeout (order-timeout)",
                            "'named' method " + Named.class.getName() + ".urgentTimeout (order-timeout)");
            });
    }

    @Test
    void twoNamesOfOneTypeOrOneNameOfTwoTypesFailStartUpNamingBothListeners() {
        this.contextRunner.withBean("named", Named.class)
            .withBean("renamed", Renamed.class)
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining(Named.class.getName() + ".timeout")
                .hasMessageContaining(Renamed.class.getName() + ".timeout")
                .hasMessageContaining("name task type 21 twice"));
        this.contextRunner.withBean("named", Named.class)
            .withBean("sameName", SameName.class)
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("give task types 21 and 22 one name"));
    }

    @Test
    void aNameThatIsNotOneOrIsANumberFailsStartUpNamingTheMethodAndTheValue() {
        this.contextRunner.withBean("named", Named.class)
            .withPropertyValues("names.orders=order timeout")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining(Named.class.getName() + ".timeout")
                .hasMessageContaining("has name '${names.orders:order-timeout}' ('order timeout')"));
        this.contextRunner.withBean("named", Named.class)
            .withPropertyValues("names.orders=22")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("('22')")
                .hasMessageContaining("with a letter among them"));
    }

    @Test
    void aConcurrencyFromAPlaceholderIsTheListenersOwnLimit() {
        this.contextRunner.withBean("limited", Limited.class)
            .withPropertyValues("downstream.concurrency=3")
            .run((context) -> assertThat(context.getBean(DelayTaskListenerAnnotationBeanPostProcessor.class)
                .endpoints()).singleElement().satisfies((endpoint) -> assertThat(endpoint.concurrency()).isEqualTo(3)));
    }

    @Test
    void aConcurrencyThatIsNotAWholeNumberOfAtLeastOneFailsStartUpNamingTheMethodAndTheValue() {
        this.contextRunner.withBean("limited", Limited.class)
            .withPropertyValues("downstream.concurrency=0")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("'limited'")
                .hasMessageContaining(Limited.class.getName() + ".handle")
                .hasMessageContaining("concurrency '${downstream.concurrency}' ('0')"));
        this.contextRunner.withBean("limited", Limited.class)
            .withPropertyValues("downstream.concurrency=many")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("('many'), which is not a whole number of at least 1"));
    }

    @Test
    void aClusterConcurrencyFromAPlaceholderIsTheQueuesLimitAndOneBelowOneFailsStartUpNamingIt() {
        this.contextRunner.withBean("partner", PartnerCalls.class)
            .withPropertyValues("partner.max-calls=3")
            .run((context) -> assertThat(context.getBean(DelayTaskListenerAnnotationBeanPostProcessor.class)
                .endpoints()).singleElement().satisfies((endpoint) -> {
                    assertThat(endpoint.clusterConcurrency()).isEqualTo(3);
                    assertThat(endpoint.concurrency()).as("no limit of the instance's own").isZero();
                }));
        this.contextRunner.withBean("partner", PartnerCalls.class)
            .withPropertyValues("partner.max-calls=-2")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining(PartnerCalls.class.getName() + ".handle")
                .hasMessageContaining("clusterConcurrency '${partner.max-calls}' ('-2')"));
    }

    @Test
    void aClusterRateFromAPlaceholderIsPermitsPerPeriodAndOneThatIsNotSuchARateFailsStartUpNamingIt() {
        this.contextRunner.withBean("rated", RatedPartnerCalls.class)
            .withPropertyValues("partner.rate=600/1m")
            .run((context) -> assertThat(context.getBean(DelayTaskListenerAnnotationBeanPostProcessor.class)
                .endpoints()).singleElement()
                .satisfies((endpoint) -> assertThat(endpoint.clusterRate())
                    .isEqualTo(new ListenerEndpoint.ClusterRate(600, Duration.ofMinutes(1)))));
        for (String rate : List.of("0/1s", "20", "20/0s", "many/1s")) {
            this.contextRunner.withBean("rated", RatedPartnerCalls.class)
                .withPropertyValues("partner.rate=" + rate)
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(RatedPartnerCalls.class.getName() + ".handle")
                    .hasMessageContaining("clusterRate '${partner.rate}' ('" + rate + "'), which is not a rate such as "
                            + "20/1s"));
        }
    }

    @Test
    void aTimeoutFromAPlaceholderIsTheListenersOwnAndOneThatIsNotAPositiveDurationFailsStartUpNamingTheMethod() {
        this.contextRunner.withBean("slow", Slow.class)
            .withPropertyValues("partner.timeout=5m")
            .run((context) -> assertThat(context.getBean(DelayTaskListenerAnnotationBeanPostProcessor.class)
                .endpoints()).singleElement()
                .satisfies((endpoint) -> assertThat(endpoint.timeout()).isEqualTo(Duration.ofMinutes(5))));
        this.contextRunner.withBean("slow", Slow.class)
            .withPropertyValues("partner.timeout=0s")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("'slow'")
                .hasMessageContaining(Slow.class.getName() + ".handle")
                .hasMessageContaining("timeout '${partner.timeout}'; a timeout must be longer than 0"));
        this.contextRunner.withBean("slow", Slow.class)
            .withPropertyValues("partner.timeout=soon")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .hasStackTraceContaining("has timeout '${partner.timeout}', which is not a duration such as 30s"));
    }

    private ListenerMethodInvoker invoker(Object bean, String methodName) {
        java.lang.reflect.Method method = java.util.Arrays.stream(bean.getClass().getDeclaredMethods())
            .filter((candidate) -> candidate.getName().equals(methodName))
            .findFirst()
            .orElseThrow();
        return new ListenerMethodInvoker(new ListenerEndpoint(new QueueId(1, 0), bean, "orders", method),
                this.codec);
    }

    private static ListenerEndpoint onlyEndpoint(DelayTaskListenerAnnotationBeanPostProcessor processor) {
        assertThat(processor.endpoints()).hasSize(1);
        return processor.endpoints().get(0);
    }

    record Order(long id, String status) {
    }

    static class OrderListeners {

        final List<String> calls = new CopyOnWriteArrayList<>();

        @DelayTaskListener(taskType = 1)
        void task(DelayTask task) {
            this.calls.add("task:" + task.getTaskId());
        }

        @DelayTaskListener(taskType = 2, priority = 5)
        void text(String text) {
            this.calls.add("text:" + text);
        }

        @DelayTaskListener(taskType = 3)
        void bytes(byte[] bytes) {
            this.calls.add("bytes:" + bytes.length);
        }

        @DelayTaskListener(taskType = 4)
        void order(Order order) {
            this.calls.add("order:" + order);
        }

        @DelayTaskListener(taskType = 6)
        void none() {
            this.calls.add("none");
        }

    }

    static class Limited {

        @DelayTaskListener(taskType = 12, concurrency = "${downstream.concurrency}")
        void handle(DelayTask task) {
        }

    }

    static class RatedPartnerCalls {

        @DelayTaskListener(taskType = 14, clusterRate = "${partner.rate}")
        void handle(DelayTask task) {
        }

    }

    static class PartnerCalls {

        @DelayTaskListener(taskType = 13, clusterConcurrency = "${partner.max-calls}")
        void handle(DelayTask task) {
        }

    }

    interface Handler {

        void handle(DelayTask task);

    }

    static class HandlerImpl implements Handler {

        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        @DelayTaskListener(taskType = 8)
        public void handle(DelayTask task) {
            this.calls.add("handled");
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class JdkProxyConfiguration {

        final HandlerImpl target = new HandlerImpl();

        @Bean
        Object proxied() {
            ProxyFactory factory = new ProxyFactory(this.target);
            factory.addInterface(Handler.class);
            return factory.getProxy();
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class CglibProxyConfiguration {

        final HandlerImpl target = new HandlerImpl();

        @Bean
        Object proxied() {
            ProxyFactory factory = new ProxyFactory(this.target);
            factory.setProxyTargetClass(true);
            return factory.getProxy();
        }

    }

    static class TwoParameters {

        @DelayTaskListener(taskType = 10)
        void handle(DelayTask task, String extra) {
        }

    }

    static class SameQueueOne {

        @DelayTaskListener(taskType = 11)
        void handle(DelayTask task) {
        }

    }

    static class SameQueueTwo {

        @DelayTaskListener(taskType = 11)
        void handle(DelayTask task) {
        }

    }

    static class Slow {

        @DelayTaskListener(taskType = 12, timeout = "${partner.timeout}")
        void handle(DelayTask task) {
        }

    }

    static class NegativeType {

        @DelayTaskListener(taskType = -1)
        void handle(DelayTask task) {
        }

    }

    static class Named {

        @DelayTaskListener(taskType = 21, name = "${names.orders:order-timeout}")
        void timeout() {
        }

        @DelayTaskListener(taskType = 21, priority = 1)
        void urgentTimeout() {
        }

    }

    static class Renamed {

        @DelayTaskListener(taskType = 21, priority = 2, name = "unpaid-order")
        void timeout() {
        }

    }

    static class SameName {

        @DelayTaskListener(taskType = 22, name = "order-timeout")
        void timeout() {
        }

    }

}
