package io.github.delaytask.benchmark.system;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version of a library on the class path, from the {@code pom.properties} that Maven puts in its jar.
 */
public final class LibraryVersion {

    private LibraryVersion() {
    }

    public static String of(String groupId, String artifactId) {
        String path = "META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = LibraryVersion.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                return "(unknown version)";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "(unknown version)");
        }
        catch (IOException ex) {
            return "(unknown version)";
        }
    }

}
