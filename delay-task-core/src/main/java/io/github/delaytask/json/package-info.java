/**
 * The codecs of task payloads on the application's Jackson mapper.
 */
@NullMarked
package io.github.delaytask.json;

import org.jspecify.annotations.NullMarked;
