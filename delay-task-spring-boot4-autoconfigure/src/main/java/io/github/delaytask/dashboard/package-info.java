/**
 * The dashboard: a web page of the application itself that shows and changes tasks through the delaytasks endpoint.
 */
@NullMarked
package io.github.delaytask.dashboard;

import org.jspecify.annotations.NullMarked;
