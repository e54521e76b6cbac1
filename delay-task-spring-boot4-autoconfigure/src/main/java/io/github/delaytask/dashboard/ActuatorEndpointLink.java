package io.github.delaytask.dashboard;

import java.util.function.Supplier;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.core.env.Environment;

/**
 * The {@code delaytasks} endpoint as Actuator mapped it: its path (base path and path mapping applied), whether its
 * write operations are mapped (not with read-only access), and whether it is on the application's port at all.
 */
final class ActuatorEndpointLink implements Supplier<EndpointLink> {

    static final EndpointId DELAYTASKS = EndpointId.of("delaytasks");

    private final ObjectProvider<PathMappedEndpoints> endpoints;

    private final Environment environment;

    ActuatorEndpointLink(ObjectProvider<PathMappedEndpoints> endpoints, Environment environment) {
        this.endpoints = endpoints;
        this.environment = environment;
    }

    @Override
    public EndpointLink get() {
        ManagementPortType port = ManagementPortType.get(this.environment);
        if (port == ManagementPortType.DIFFERENT) {
            return EndpointLink.unreachable("Actuator is served on a port of its own (management.server.port="
                    + this.environment.getProperty("management.server.port") + "), which this page, served on the "
                    + "application's port, cannot reach. Serve Actuator on the application's port to use it.");
        }
        PathMappedEndpoints mapped = (port == ManagementPortType.SAME) ? this.endpoints.getIfAvailable() : null;
        PathMappedEndpoint endpoint = (mapped != null) ? mapped.getEndpoint(DELAYTASKS) : null;
        if (endpoint == null) {
            return EndpointLink.unreachable("the delaytasks endpoint is not available over HTTP. Add delaytasks to "
                    + "management.endpoints.web.exposure.include, and leave management.endpoint.delaytasks.access "
                    + "unset or read-only.");
        }
        boolean writable = (endpoint instanceof ExposableWebEndpoint web)
                && web.getOperations().stream().anyMatch((operation) -> operation.getType() == OperationType.WRITE);
        return new EndpointLink(mapped.getPath(DELAYTASKS), writable, null);
    }

}
