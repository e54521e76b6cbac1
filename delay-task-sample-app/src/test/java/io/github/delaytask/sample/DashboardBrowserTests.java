package io.github.delaytask.sample;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.sample.webhook.Partner;
import io.github.delaytask.sample.webhook.WebhookService;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard of the sample, in a headless Chromium: Debian's {@code chromium} and {@code chromium-driver}, given
 * to Selenium by path so that Selenium Manager never looks for a browser or a driver to download. Run with
 * {@code mvn verify -Pbrowser -pl delay-task-sample-app -am}; {@code -Ddashboard.screenshot=$PWD/docs/dashboard.png}
 * (an absolute path: the test runs in its module's directory) also saves the page with its dead task, as the README
 * shows it.
 */
@Tag("browser")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "delay-task.redis.key-prefix=sample-browser-${random.uuid}")
class DashboardBrowserTests {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    @Value("${local.server.port}")
    private int port;

    @Autowired
    private WebhookService webhooks;

    @Autowired
    private Partner partner;

    @Autowired
    private DelayTaskService tasks;

    private Path profile;

    private WebDriver browser;

    @BeforeAll
    void startBrowser() throws IOException {
        assertThat(CHROMIUM).as("Debian's chromium (apt-get install chromium chromium-driver)").isExecutable();
        assertThat(CHROMEDRIVER).as("Debian's chromium-driver").isExecutable();
        this.profile = Files.createTempDirectory("delay-task-chromium");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
            .addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1440,1100", "--user-data-dir=" + this.profile);
        ChromeDriverService driver = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
        this.browser = new ChromeDriver(driver, options);
    }

    @AfterAll
    void stopBrowser() throws IOException {
        if (this.browser != null) {
            this.browser.quit();
        }
        FileSystemUtils.deleteRecursively(this.profile);
    }

    @Test
    void showsTheSamplesQueuesAndADeadWebhookWithItsErrorWhichRunsOnceRequeuedFromThePage() throws IOException {
        // some work done, for the chart
        List<Long> delivered = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            delivered.add(this.webhooks.send("order " + i + " shipped"));
        }
        await().atMost(Duration.ofSeconds(20))
            .until(() -> delivered.stream().allMatch((id) -> status(id) == TaskStatus.EXECUTED));
        String event = "order " + UUID.randomUUID() + " paid";
        this.partner.setUp(false);
        long taskId;
        try {
            taskId = this.webhooks.send(event);
            await().atMost(Duration.ofSeconds(20)).until(() -> status(taskId) == TaskStatus.DEAD);
        }
        finally {
            this.partner.setUp(true);
        }

        this.browser.get("http://127.0.0.1:" + this.port + "/delay-task");
        onThePage(() -> {
            List<String> queues = this.browser.findElements(By.cssSelector("#queues tbody tr"))
                .stream()
                .map((row) -> row.getAttribute("data-queue"))
                .toList();
            assertThat(queues).contains(TaskTypes.ORDER_TIMEOUT + "/0", TaskTypes.CALL_ATTEMPT + "/0",
                    TaskTypes.WEBHOOK + "/0");
        });
        WebElement webhookQueue = this.browser
            .findElement(By.cssSelector("#queues tr[data-queue='" + TaskTypes.WEBHOOK + "/0']"));
        assertThat(webhookQueue.getText()).contains("webhook (" + TaskTypes.WEBHOOK + ")")
            .contains("WebhookService.deliver")
            .contains("running");

        // the sample's recurring schedule, declared in code
        WebElement settlement = this.browser
            .findElement(By.cssSelector("#schedules tr[data-schedule='daily-settlement']"));
        assertThat(settlement.getText()).contains("0 30 1 * * * (Asia/Shanghai)")
            .contains("settlement (" + TaskTypes.DAILY_SETTLEMENT + ")")
            .contains("running")
            .contains("code");

        By deadRow = By.cssSelector("#dead tr[data-task-id='" + taskId + "']");
        onThePage(() -> assertThat(this.browser.findElement(deadRow).getText()).contains("503 Service Unavailable")
            .contains("webhook:"));
        saveScreenshot();

        // every change asks first: a requeue turned down changes nothing
        this.browser.findElement(deadRow).findElement(By.cssSelector("button.requeue")).click();
        answer(false);
        assertThat(status(taskId)).isEqualTo(TaskStatus.DEAD);
        this.browser.findElement(deadRow).findElement(By.cssSelector("button.requeue")).click();
        answer(true);
        await().atMost(Duration.ofSeconds(15)).until(() -> status(taskId) == TaskStatus.EXECUTED);
        assertThat(this.partner.received()).contains(event);
        assertThat(this.browser.findElement(By.id("message")).getText()).contains("Task " + taskId + ": requeued");
        await().atMost(Duration.ofSeconds(15))
            .ignoreExceptions()
            .until(() -> this.browser.findElements(deadRow).isEmpty());
    }

    @Test
    void pausingAndResumingAQueueFromThePageAsksFirst() {
        By queueRow = By.cssSelector("#queues tr[data-queue='" + TaskTypes.WEBHOOK + "/0']");
        this.browser.get("http://127.0.0.1:" + this.port + "/delay-task");
        onThePage(() -> assertThat(this.browser.findElement(queueRow).getText()).contains("running"));
        this.browser.findElement(queueRow).findElement(By.cssSelector("button.pause")).click();
        answer(false);
        assertThat(this.tasks.isQueuePaused(TaskTypes.WEBHOOK, 0)).as("paused, though turned down").isFalse();
        this.browser.findElement(queueRow).findElement(By.cssSelector("button.pause")).click();
        answer(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> this.tasks.isQueuePaused(TaskTypes.WEBHOOK, 0));
        onThePage(() -> assertThat(this.browser.findElement(queueRow).getText()).contains("paused"));
        this.browser.findElement(queueRow).findElement(By.cssSelector("button.resume")).click();
        answer(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> !this.tasks.isQueuePaused(TaskTypes.WEBHOOK, 0));
    }

    @Test
    void savingAScheduleFromThePageAsksFirstAndListsItWhichThenPausesFromItsRow() {
        String name = "sweep-" + UUID.randomUUID().toString().substring(0, 8);
        By scheduleRow = By.cssSelector("#schedules tr[data-schedule='" + name + "']");
        this.browser.get("http://127.0.0.1:" + this.port + "/delay-task");
        onThePage(() -> assertThat(this.browser.findElement(By.id("schedule-form")).isDisplayed()).isTrue());
        try {
            this.browser.findElement(By.id("schedule-name")).sendKeys(name);
            ((JavascriptExecutor) this.browser).executeScript("arguments[0].value = 'interval'",
                    this.browser.findElement(By.id("schedule-kind")));
            this.browser.findElement(By.id("schedule-when")).sendKeys("1h");
            this.browser.findElement(By.id("schedule-type")).sendKeys(String.valueOf(TaskTypes.DAILY_SETTLEMENT));
            this.browser.findElement(By.id("schedule-save")).click();
            answer(false);
            assertThat(stored(name)).as("saved, though turned down").isFalse();
            this.browser.findElement(By.id("schedule-save")).click();
            answer(true);
            await().atMost(Duration.ofSeconds(10)).until(() -> stored(name));
            onThePage(() -> assertThat(this.browser.findElement(scheduleRow).getText()).contains("every 1.0 h")
                .contains("running")
                .contains("run time"));
            this.browser.findElement(scheduleRow).findElement(By.cssSelector("button.pause")).click();
            answer(true);
            onThePage(() -> assertThat(this.browser.findElement(scheduleRow).getText()).contains("paused"));
            assertThat(this.tasks.findSchedules()).filteredOn((schedule) -> schedule.schedule().getName().equals(name))
                .singleElement()
                .satisfies((schedule) -> assertThat(schedule.paused()).isTrue());
        }
        finally {
            this.tasks.removeSchedule(name);
        }
    }

    private boolean stored(String name) {
        return this.tasks.findSchedules().stream().anyMatch((schedule) -> schedule.schedule().getName().equals(name));
    }

    /** Answers the question the page asks before a change. */
    private void answer(boolean yes) {
        Alert question = await().atMost(Duration.ofSeconds(5))
            .ignoreException(NoAlertPresentException.class)
            .until(() -> this.browser.switchTo().alert(), Objects::nonNull);
        if (yes) {
            question.accept();
        }
        else {
            question.dismiss();
        }
    }

    /** Waits for the page to show what the assertion expects; if it never does, says what it shows instead. */
    private void onThePage(ThrowingRunnable assertion) {
        try {
            await().atMost(Duration.ofSeconds(15)).ignoreExceptions().untilAsserted(assertion);
        }
        catch (ConditionTimeoutException ex) {
            throw new AssertionError("The page shows:\n" + this.browser.findElement(By.tagName("body")).getText(), ex);
        }
    }

    private TaskStatus status(long taskId) {
        return this.tasks.findTask(taskId).orElseThrow().status();
    }

    /** The page as the README shows it, when asked for with {@code -Ddashboard.screenshot=path}. */
    private void saveScreenshot() throws IOException {
        String target = System.getProperty("dashboard.screenshot");
        if (target == null || target.isBlank()) {
            return;
        }
        File shot = ((ChromeDriver) this.browser).getScreenshotAs(OutputType.FILE);
        Path path = Path.of(target);
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        Files.copy(shot.toPath(), path, StandardCopyOption.REPLACE_EXISTING);
    }

}
