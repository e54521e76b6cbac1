package io.github.delaytask.dashboard;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Tests for {@link DelayTaskDashboard} where Actuator is not on the application's port, which an application
 * context of a test cannot start without a server.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayTaskDashboardTests {

    @Test
    void saysOnThePageAndInTheLogThatActuatorOnAPortOfItsOwnIsOutOfItsReach(CapturedOutput output) throws Exception {
        MockEnvironment environment = new MockEnvironment().withProperty("server.port", "8080")
            .withProperty("management.server.port", "9091");
        DelayTaskDashboard dashboard = new DelayTaskDashboard("/delay-task",
                new DefaultListableBeanFactory().getBeanProvider(PathMappedEndpoints.class), environment);
        dashboard.afterSingletonsInstantiated();
        assertThat(output).contains("The delay-task dashboard at /delay-task cannot show or change tasks")
            .contains("management.server.port=9091");
        MockMvc mvc = MockMvcBuilders.routerFunctions(dashboard.routes()).build();
        mvc.perform(get("/delay-task"))
            .andExpect(status().isOk())
            .andExpect(content().string(containsString("<meta name=\"delay-task-endpoint\" content=\"\">")))
            .andExpect(content().string(containsString("port of its own (management.server.port=9091)")));
    }

    @Test
    void noOtherSiteMayFrameThePageOrItsAssetsWithoutSpringSecurity() throws Exception {
        DelayTaskDashboard dashboard = new DelayTaskDashboard("/delay-task", () -> new EndpointLink(null, false, null));
        MockMvc mvc = MockMvcBuilders.routerFunctions(dashboard.routes()).build();
        for (String path : new String[] { "/delay-task", "/delay-task/", "/delay-task/dashboard.js",
                "/delay-task/dashboard.css" }) {
            mvc.perform(get(path))
                .andExpect(status().isOk())
                .andExpect(header().string("X-Frame-Options", "DENY"))
                .andExpect(header().string("Content-Security-Policy", "frame-ancestors 'none'"))
                .andExpect(header().string("X-Content-Type-Options", "nosniff"));
        }
    }

    @Test
    void escapesWhatItWritesIntoThePage() throws Exception {
        DelayTaskDashboard dashboard = new DelayTaskDashboard("/delay-task",
                () -> new EndpointLink(null, false, "a \"quoted\" <problem>"));
        MockMvcBuilders.routerFunctions(dashboard.routes())
            .build()
            .perform(get("/delay-task"))
            .andExpect(content().string(containsString("content=\"a &quot;quoted&quot; &lt;problem&gt;\"")));
    }

}
