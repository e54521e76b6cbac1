package io.github.delaytask.testsupport;

import java.util.Map;

/**
 * What a health indicator of either Boot line reported, without the line's own types.
 * @param status the status code
 * @param details the details
 */
public record ReportedHealth(String status, Map<String, Object> details) {

}
