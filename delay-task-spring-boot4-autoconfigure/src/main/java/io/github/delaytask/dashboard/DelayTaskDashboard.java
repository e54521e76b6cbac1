package io.github.delaytask.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.env.Environment;
import org.springframework.core.io.Resource;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.util.HtmlUtils;

/**
 * The dashboard's routes: its page at the configured path, with and without a trailing slash, and the page's script
 * and style sheet below it, all from the jar. Public for wiring.
 * <p>
 * The page holds no data of its own: its script calls the {@code delaytasks} endpoint, whose path, access and any
 * problem reaching it the page gets in {@code <meta>} tags filled here, so that Actuator's exposure and access and
 * the application's security apply to every action of the page.
 */
public class DelayTaskDashboard implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(DelayTaskDashboard.class);

    private static final String ASSETS = "META-INF/delay-task/dashboard/";

    private final String path;

    private final Supplier<EndpointLink> endpoint;

    private volatile @Nullable String template;

    /**
     * @param path the dashboard's path, validated by the properties
     * @param endpoints Actuator's web endpoints, looked at on each view of the page
     * @param environment where Actuator's port is set
     */
    public DelayTaskDashboard(String path, ObjectProvider<PathMappedEndpoints> endpoints, Environment environment) {
        this(path, new ActuatorEndpointLink(endpoints, environment));
    }

    /**
     * @param path the dashboard's path
     * @param endpoint where the endpoint is now: taken on each view of the page, as Actuator's endpoints are
     * discovered after this is created
     */
    DelayTaskDashboard(String path, Supplier<EndpointLink> endpoint) {
        this.path = path;
        this.endpoint = endpoint;
    }

    /** The page, its script and its style sheet; nothing else below the path. */
    public RouterFunction<ServerResponse> routes() {
        return RouterFunctions.route()
            .GET(this.path, this::page)
            .GET(this.path + "/", this::page)
            .GET(this.path + "/dashboard.js", (request) -> asset("dashboard.js", "text/javascript"))
            .GET(this.path + "/dashboard.css", (request) -> asset("dashboard.css", "text/css"))
            .build();
    }

    /** Warns at start-up of what would leave the page without its endpoint, rather than at the first look. */
    @Override
    public void afterSingletonsInstantiated() {
        String problem = this.endpoint.get().problem();
        if (problem != null) {
            logger.warn("The delay-task dashboard at " + this.path + " cannot show or change tasks: " + problem);
        }
    }

    private ServerResponse page(ServerRequest request) {
        String base = request.requestPath().contextPath().value();
        EndpointLink link = this.endpoint.get();
        String html = template().replace("{{base}}", attribute(base + this.path))
            .replace("{{endpoint}}", attribute((link.path() != null) ? base + link.path() : ""))
            .replace("{{writable}}", Boolean.toString(link.writable()))
            .replace("{{problem}}", attribute((link.problem() != null) ? link.problem() : ""));
        return ServerResponse.ok()
            .headers(DelayTaskDashboard::protect)
            .contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
            .cacheControl(CacheControl.noStore())
            .body(html);
    }

    /**
     * No other site may frame the page (clickjacking its Run now, Pause and Requeue buttons) nor have it read as
     * another type, whether or not the application has Spring Security to say so.
     */
    private static void protect(HttpHeaders headers) {
        headers.set("X-Frame-Options", "DENY");
        headers.set("Content-Security-Policy", "frame-ancestors 'none'");
        headers.set("X-Content-Type-Options", "nosniff");
    }

    private static ServerResponse asset(String name, String type) {
        return ServerResponse.ok()
            .headers(DelayTaskDashboard::protect)
            .contentType(new MediaType(MediaType.parseMediaType(type), StandardCharsets.UTF_8))
            .cacheControl(CacheControl.noCache())
            .body(new ClassPathResource(ASSETS + name, DelayTaskDashboard.class.getClassLoader()));
    }

    private String template() {
        String html = this.template;
        if (html == null) {
            Resource resource = new ClassPathResource(ASSETS + "index.html", DelayTaskDashboard.class.getClassLoader());
            try (InputStream in = resource.getInputStream()) {
                html = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            catch (IOException ex) {
                throw new UncheckedIOException("The dashboard's page " + resource + " is missing from the jar", ex);
            }
            this.template = html;
        }
        return html;
    }

    private static String attribute(String value) {
        return HtmlUtils.htmlEscape(value, StandardCharsets.UTF_8.name());
    }

}
