/* vxtfile.c - byte-level building and parsing of .vxt units */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "format/vxtfile.h"
#include "vxtrace/util.h"

static void buf_reserve(struct vxt_buf *b, size_t len)
{
	if (!b->err && vxt_grow(&b->p, &b->cap, b->len + len, 1) < 0)
		b->err = -ENOMEM;
}

void vxt_buf_put(struct vxt_buf *b, const void *data, size_t len)
{
	if (!len)
		return;		/* @data may be NULL (an empty footer index) */
	buf_reserve(b, len);
	if (b->err)
		return;
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

void vxt_buf_u8(struct vxt_buf *b, uint8_t v)
{
	vxt_buf_put(b, &v, 1);
}

void vxt_buf_u32(struct vxt_buf *b, uint32_t v)
{
	uint8_t p[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	vxt_buf_put(b, p, 4);
}

void vxt_buf_u64(struct vxt_buf *b, uint64_t v)
{
	vxt_buf_u32(b, (uint32_t)v);
	vxt_buf_u32(b, (uint32_t)(v >> 32));
}

void vxt_buf_str(struct vxt_buf *b, const char *s, size_t fixed)
{
	size_t n = s ? strnlen(s, fixed - 1) : 0;

	buf_reserve(b, fixed);
	if (b->err)
		return;
	memset(b->p + b->len, 0, fixed);
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += fixed;
}

void vxt_buf_free(struct vxt_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

const uint8_t *vxt_cur_take(struct vxt_cur *c, size_t len)
{
	const uint8_t *p = c->p;

	if (c->bad || len > (size_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	c->p += len;
	return p;
}

uint8_t vxt_cur_u8(struct vxt_cur *c)
{
	const uint8_t *p = vxt_cur_take(c, 1);

	return p ? p[0] : 0;
}

uint32_t vxt_cur_u32(struct vxt_cur *c)
{
	const uint8_t *p = vxt_cur_take(c, 4);

	return p ? vxt_le32(p) : 0;
}

uint64_t vxt_cur_u64(struct vxt_cur *c)
{
	const uint8_t *p = vxt_cur_take(c, 8);

	return p ? vxt_le64(p) : 0;
}

void vxt_cur_str(struct vxt_cur *c, char *out, size_t fixed)
{
	const uint8_t *p = vxt_cur_take(c, fixed);

	if (!p) {
		out[0] = '\0';
		return;
	}
	memcpy(out, p, fixed);
	out[fixed - 1] = '\0';
}

size_t vxt_unit_begin(struct vxt_buf *b, unsigned unit, uint32_t tag)
{
	size_t start = b->len;

	vxt_buf_u32(b, VXT_SKIP_MAGIC | unit);
	vxt_buf_u32(b, 0);		/* content size, set by vxt_unit_end() */
	vxt_buf_u32(b, tag);
	return start;
}

void vxt_unit_end(struct vxt_buf *b, size_t start)
{
	uint32_t crc, size;

	if (b->err)
		return;
	crc = vxt_crc32c(0, b->p + start + 8, b->len - start - 8);
	vxt_buf_u32(b, crc);
	if (b->err)
		return;
	size = (uint32_t)(b->len - start - 8);
	memcpy(b->p + start + 4, (uint8_t[4]){ (uint8_t)size, (uint8_t)(size >> 8),
					      (uint8_t)(size >> 16), (uint8_t)(size >> 24) }, 4);
}

void vxt_put_objects(struct vxt_buf *b, const struct vxt_objtab *t, size_t from)
{
	size_t n = vxt_objtab_count(t);

	vxt_buf_u32(b, (uint32_t)(n - from));
	for (size_t i = from; i < n; i++) {
		const struct vxt_object *o = vxt_objtab_get(t, (uint32_t)i);
		size_t len = strnlen(o->name, VXT_OBJ_NAME_MAX - 1);

		vxt_buf_u32(b, o->dev);
		vxt_buf_u64(b, o->size);
		vxt_buf_u8(b, o->kind);
		vxt_buf_u8(b, (uint8_t)len);
		vxt_buf_put(b, o->name, len);
	}
}

void vxt_put_strings(struct vxt_buf *b, const struct vxt_strtab *t, size_t from)
{
	size_t n = vxt_strtab_count(t);

	if (from == 0)
		from = 1;	/* id 0 is always "" and never stored */
	vxt_buf_u32(b, (uint32_t)(n - from));
	for (size_t i = from; i < n; i++) {
		const char *s = vxt_strtab_get(t, (uint32_t)i);
		size_t len = strlen(s);

		vxt_buf_u8(b, (uint8_t)len);
		vxt_buf_put(b, s, len);
	}
}

int vxt_get_objects(struct vxt_cur *c, struct vxt_objtab *t)
{
	uint32_t n = vxt_cur_u32(c);

	/* each object takes at least 14 bytes: reject counts the unit can't hold */
	if (c->bad || n > (size_t)(c->end - c->p) / 14 ||
	    vxt_objtab_count(t) + n > VXT_OBJECTS_MAX)
		return -EBADMSG;
	for (uint32_t i = 0; i < n; i++) {
		char name[VXT_OBJ_NAME_MAX];
		uint32_t dev = vxt_cur_u32(c);
		uint64_t size = vxt_cur_u64(c);
		uint8_t kind = vxt_cur_u8(c);
		uint8_t len = vxt_cur_u8(c);
		const uint8_t *p;

		if (len >= VXT_OBJ_NAME_MAX || !(p = vxt_cur_take(c, len)))
			return -EBADMSG;
		memcpy(name, p, len);
		name[len] = '\0';
		/* ids are positional: a repeated dev still gets its own id */
		if (vxt_objtab_add(t, 0, name, kind, size) < 0)
			return -ENOMEM;
		((struct vxt_object *)vxt_objtab_get(t, (uint32_t)vxt_objtab_count(t) - 1))->dev = dev;
	}
	return c->bad ? -EBADMSG : 0;
}

int vxt_get_strings(struct vxt_cur *c, struct vxt_strtab *t)
{
	uint32_t n = vxt_cur_u32(c);

	if (c->bad || n > (size_t)(c->end - c->p) || vxt_strtab_count(t) + n > VXT_STRINGS_MAX)
		return -EBADMSG;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t len = vxt_cur_u8(c);
		const uint8_t *p = vxt_cur_take(c, len);
		size_t before = vxt_strtab_count(t);
		int64_t id;

		if (!p)
			return -EBADMSG;
		id = vxt_strtab_intern(t, (const char *)p, len);
		if (id < 0)
			return -ENOMEM;
		/* a writer never stores a string twice; a file that does is corrupt */
		if ((size_t)id != before)
			return -EBADMSG;
	}
	return 0;
}

void vxt_put_objagg(struct vxt_buf *b, const struct vxt_objagg *a)
{
	vxt_buf_u32(b, a->object);
	for (int i = 0; i < VXT_OP_COUNT; i++)
		vxt_buf_u32(b, a->ios[i]);
	vxt_buf_u32(b, a->starts);
	vxt_buf_u32(b, a->errors);
	vxt_buf_u64(b, a->bytes_read);
	vxt_buf_u64(b, a->bytes_written);
	vxt_buf_u64(b, a->lat_sum_ns);
	for (int i = 0; i < VXT_LAT_BUCKETS; i++)
		vxt_buf_u32(b, a->lat_hist[i]);
}

/* The in-memory struct is the on-disk layout on a little-endian host: one copy. */
#define OBJAGG_AS_STORED (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
			  sizeof(struct vxt_objagg) == VXT_OBJAGG_SIZE && \
			  offsetof(struct vxt_objagg, starts) == 4 + 4 * VXT_OP_COUNT && \
			  offsetof(struct vxt_objagg, bytes_read) == 12 + 4 * VXT_OP_COUNT && \
			  offsetof(struct vxt_objagg, lat_hist) == 36 + 4 * VXT_OP_COUNT)

void vxt_get_objagg(struct vxt_cur *c, struct vxt_objagg *a)
{
	if (OBJAGG_AS_STORED && !c->bad && (size_t)(c->end - c->p) >= VXT_OBJAGG_SIZE) {
		memcpy(a, c->p, VXT_OBJAGG_SIZE);
		c->p += VXT_OBJAGG_SIZE;
		return;
	}
	a->object = vxt_cur_u32(c);
	for (int i = 0; i < VXT_OP_COUNT; i++)
		a->ios[i] = vxt_cur_u32(c);
	a->starts = vxt_cur_u32(c);
	a->errors = vxt_cur_u32(c);
	a->bytes_read = vxt_cur_u64(c);
	a->bytes_written = vxt_cur_u64(c);
	a->lat_sum_ns = vxt_cur_u64(c);
	for (int i = 0; i < VXT_LAT_BUCKETS; i++)
		a->lat_hist[i] = vxt_cur_u32(c);
}
