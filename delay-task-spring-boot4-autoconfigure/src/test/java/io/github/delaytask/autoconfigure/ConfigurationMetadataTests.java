package io.github.delaytask.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the configuration metadata that the annotation processor generates from {@link DelayTaskProperties} and
 * merges with {@code additional-spring-configuration-metadata.json}.
 */
class ConfigurationMetadataTests {

    private static final String METADATA = "META-INF/spring-configuration-metadata.json";

    private DocumentContext metadata;

    @BeforeEach
    void readMetadata() throws IOException {
        this.metadata = delayTaskMetadata();
    }

    @Test
    void everyDelayTaskPropertyHasADescription() {
        List<Map<String, Object>> properties = delayTaskProperties();
        assertThat(properties).extracting((property) -> property.get("name"))
            .contains("delay-task.enabled", "delay-task.jdbc.platform", "delay-task.jdbc.initialize-schema");
        assertThat(properties).allSatisfy((property) -> assertThat((String) property.get("description"))
            .as("description of %s", property.get("name"))
            .isNotBlank());
    }

    @Test
    void descriptionsAreWrittenInBootsVoice() {
        assertThat(delayTaskProperties()).allSatisfy((property) -> {
            String description = (String) property.get("description");
            assertThat(description).as("description of %s", property.get("name"))
                .doesNotStartWith("The ")
                .doesNotStartWith("A ")
                .doesNotContain("{@")
                .doesNotContain("<");
            if ("java.lang.Boolean".equals(property.get("type"))) {
                assertThat(description).as("description of %s", property.get("name")).startsWith("Whether");
            }
        });
    }

    @Test
    void initializeSchemaHintListsEveryInitializationMode() {
        List<String> modes = Arrays.stream(DatabaseInitializationMode.values())
            .map((mode) -> mode.name().toLowerCase(Locale.ROOT))
            .toList();
        assertThat(hintValues("delay-task.jdbc.initialize-schema")).containsExactlyInAnyOrderElementsOf(modes);
    }

    @Test
    void platformHintListsThePlatformsThatHaveASchemaScript() {
        List<String> platforms = hintValues("delay-task.jdbc.platform");
        assertThat(platforms).containsExactlyInAnyOrder("h2", "mysql", "postgresql");
        assertThat(platforms).allSatisfy((platform) -> assertThat(
                new ClassPathResource("META-INF/delay-task/sql/schema-" + platform + ".sql").exists())
            .as("schema script of %s", platform)
            .isTrue());
    }

    private List<Map<String, Object>> delayTaskProperties() {
        return this.metadata.read("$.properties[?(@.name =~ /delay-task\\..*/)]");
    }

    private List<String> hintValues(String name) {
        return this.metadata.read("$.hints[?(@.name == '" + name + "')].values[*].value");
    }

    /**
     * The metadata of the jar (or classes directory) that declares the {@code delay-task} group: every Boot jar on the
     * test class path has a file of the same name.
     */
    private static DocumentContext delayTaskMetadata() throws IOException {
        List<DocumentContext> found = new ArrayList<>();
        ClassLoader classLoader = ConfigurationMetadataTests.class.getClassLoader();
        for (URL url : Collections.list(classLoader.getResources(METADATA))) {
            try (InputStream content = url.openStream()) {
                DocumentContext metadata = JsonPath.parse(content);
                Map<String, Object> json = metadata.json();
                List<?> groups = (List<?>) json.getOrDefault("groups", List.of());
                if (groups.stream().anyMatch((group) -> "delay-task".equals(((Map<?, ?>) group).get("name")))) {
                    found.add(metadata);
                }
            }
        }
        assertThat(found).as("metadata declaring the delay-task group").hasSize(1);
        return found.get(0);
    }

}
