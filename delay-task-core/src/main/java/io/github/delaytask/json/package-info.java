/**
 * The codecs of task payloads on the application's Jackson mapper.
 */
package io.github.delaytask.json;
