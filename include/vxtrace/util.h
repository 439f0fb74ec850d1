/* util.h - small shared helpers: errno names, times, sizes, CRC
 */
#ifndef VXTRACE_UTIL_H
#define VXTRACE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The size of the char[] an opening call reports its error into. */
#define VXT_ERRBUF_SIZE 512

/* The product's one unit of data: MiB = 2^20 bytes, rates in MiB/s
 * (formats/reports.md, Units). */
#define VXT_MIB 1048576.0

/* Nanoseconds per second: every time in the library is in ns. */
#define VXT_NSEC_PER_SEC ((uint64_t)1000000000)

/* "EIO" for 5 (or -5); NULL if unknown. */
const char *vxt_errno_name(int err);
/* As vxt_errno_name(), for display: "" for 0, the number (without its
 * sign, in @buf) when the errno has no name. @return the name or @buf.
 * Can't fail. */
const char *vxt_errno_label(int err, char *buf, size_t size);
/* "EIO" or "5" -> 5. @return the positive errno, or -1. */
int vxt_errno_parse(const char *s);

/* The first index of the ascending @a[0..@n) whose value is not below @x
 * (@n when none is). @a may be NULL when @n is 0. Can't fail. */
size_t vxt_lower_bound_u64(const uint64_t *a, size_t n, uint64_t x);

/* Parse a duration: "1.5" (seconds), "500us", "20ms", "2s", "3m", "1h", "10ns".
 * @return 0 and *ns, or -EINVAL. */
int vxt_parse_duration(const char *s, uint64_t *ns);
/* Parse a size: "4096", "4k", "1M", "2G" (binary: k = 1024). @return 0 or -EINVAL. */
int vxt_parse_size(const char *s, uint64_t *bytes);

/*
 * Parse a point in a trace: "12.5" (seconds from @start_ns), "+2s" / "-500ms"
 * (relative to @cur_ns), "14:03:07.25" (wall clock, on the day of @start_ns
 * through the anchor real = mono + (anchor_real - anchor_mono)), or a full
 * "2026-11-30T14:03:07.25". @return 0 and *out (monotonic ns), or -EINVAL.
 */
int vxt_parse_time(const char *s, uint64_t start_ns, uint64_t cur_ns,
		   uint64_t anchor_mono, uint64_t anchor_real, uint64_t *out);

/* "12.345678901" seconds from @base. @return buf. */
char *vxt_format_reltime(uint64_t ns, uint64_t base, char *buf, size_t size);
/* "14:03:07.250123" local wall clock. @return buf. */
char *vxt_format_walltime(uint64_t real_ns, char *buf, size_t size);
/* "2026-12-01 14:03:07.250123 +0100": local date, time and zone offset
 * (traces and flight-recorder rotations span days). @return buf. */
char *vxt_format_datetime(uint64_t real_ns, char *buf, size_t size);
/* "2026-12-01T14:03:07.250123" local, one word, as vxt_parse_time() reads
 * it back. @return buf. */
char *vxt_format_isotime(uint64_t real_ns, char *buf, size_t size);
/* "1.5ms", "230us", "2.00s". @return buf. */
char *vxt_format_duration(uint64_t ns, char *buf, size_t size);
/* "4.0KiB", "1.5MiB", "512B": binary units, named (at most 7 characters
 * below 2^70). @return buf. */
char *vxt_format_size(uint64_t bytes, char *buf, size_t size);

/* CRC-32C (Castagnoli). Start with crc = 0. */
uint32_t vxt_crc32c(uint32_t crc, const void *buf, size_t len);
/* The same without the CPU instruction (to test one against the other). */
uint32_t vxt_crc32c_sw(uint32_t crc, const void *buf, size_t len);

/* @return a message for a negative errno @rc (corrupt data, unsupported
 * format, else strerror(-rc)). Can't fail. */
const char *vxt_strerror(int rc);

/* Make room for @want items of @size in the array *@array of capacity
 * *@cap, doubling it from 16. @return 0, or -ENOMEM with the array as it was. */
int vxt_grow(void *array, size_t *cap, size_t want, size_t size);

/* Whether @s matches the shell-style glob @pat: * ? [abc] [a-z] [!x] and
 * \ escapes. No allocation. */
bool vxt_glob_match(const char *pat, const char *s);

/* CLOCK_MONOTONIC / CLOCK_REALTIME in ns. */
uint64_t vxt_now_mono(void);
uint64_t vxt_now_real(void);

#endif
