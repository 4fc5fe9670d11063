// SPDX-License-Identifier: GPL-2.0
/* --flamegraph: one self-contained HTML page (stack_html.h says what it shows). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include "src/json.h"
#include "src/stack_frame.h"
#include "src/stack_html.h"

/* The viewer's files, NUL-terminated (src/stack_viewer.S). */
extern const char stack_viewer_d3[], stack_viewer_flamegraph[], stack_viewer_css[];

/* Text in HTML: the five characters that could start markup or end an attribute. */
static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/*
 * A JavaScript string inside <script>: JSON's escapes, and '<', '>', '&' as \u escapes so
 * that no name can end the script ("</script>") or open a comment; U+2028 and U+2029 too
 * (line ends to older JavaScript). Bytes that are not UTF-8 become U+FFFD.
 */
static void js_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		size_t bad, n = json_utf8_char(p, &bad);

		if (!n) {
			fputs("\\ufffd", f);
			p += bad;
		} else if (n == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			fprintf(f, "\\u%04x", 0x2000 | (p[2] - 0x80));
			p += n;
		} else if (n > 1) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			if (*p == '"' || *p == '\\')
				fprintf(f, "\\%c", *p);
			else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
			p++;
		}
	}
	fputc('"', f);
}

/* Frames root first: @frames is leaf first. */
static void js_frames(FILE *f, const char *const *frames, int n)
{
	int i;

	fputc('[', f);
	for (i = n - 1; i >= 0; i--) {
		js_string(f, frames[i]);
		if (i)
			fputc(',', f);
	}
	fputc(']', f);
}

/*
 * The page's own script: the stacks into d3-flame-graph's tree (a node's value is its
 * events, its children's included), the buttons, and titles with count and share.
 */
static const char page_script[] =
"const root = {name: 'all', value: 0, children: []};\n"
"function child(node, name, libtype) {\n"
"  node.index = node.index || new Map();\n"
"  let c = node.index.get(name);\n"
"  if (!c) {\n"
"    c = {name: name, value: 0, children: [], libtype: libtype};\n"
"    node.index.set(name, c);\n"
"    node.children.push(c);\n"
"  }\n"
"  return c;\n"
"}\n"
"for (const [count, group, key, user, kernel] of STACKS) {\n"
"  let node = root;\n"
"  root.value += count;\n"
"  const path = [];\n"
"  if (group !== null) path.push([group, '']);\n"
"  if (key !== null) path.push([key, '']);\n"
"  for (const u of user) path.push([u, u.endsWith('" STACK_INLINED "') ? 'inlined' : '']);\n"
"  if (user.length && kernel.length) path.push(['" STACK_FOLD_SEP "', '']);\n"
"  for (const k of kernel) path.push([k, 'kernel']);\n"
"  if (!path.length) path.push(['[no frames]', '']);\n"
"  for (const [name, libtype] of path) {\n"
"    node = child(node, name, libtype);\n"
"    node.value += count;\n"
"  }\n"
"}\n"
"(function strip(n) { delete n.index; n.children.forEach(strip); })(root);\n"
"const share = v => (TOTAL ? 100 * v / TOTAL : 0).toFixed(2) + '%';\n"
"const label = d => d.data.name + ': ' + d.data.value + ' event' +\n"
"  (d.data.value === 1 ? '' : 's') + ', ' + share(d.data.value) + ' of all ' + TOTAL;\n"
"const chart = flamegraph.default()\n"
"  .width(Math.max(document.getElementById('chart').clientWidth, 600))\n"
"  .cellHeight(18).minFrameSize(1).selfValue(false).sort(true)\n"
"  .transitionDuration(0)\n"
"  .setDetailsElement(document.getElementById('details'))\n"
"  .setLabelHandler(label);\n"
"chart.setSearchHandler((results, sum, total) => {\n"
"  document.getElementById('details').textContent = 'search: ' + results.length +\n"
"    ' frames, ' + sum + ' events, ' + share(sum) + ' of all ' + TOTAL;\n"
"});\n"
"d3.select('#chart').datum(root).call(chart);\n"
/*
 * The first drawing grows its frames over d3's default 250 ms whatever the duration: a
 * second one, with none, ends that (d3.timerFlush below runs it).
 */
"chart.update();\n"
"document.getElementById('search').addEventListener('submit', ev => {\n"
"  ev.preventDefault();\n"
"  chart.search(document.getElementById('term').value);\n"
"});\n"
"document.getElementById('clear').addEventListener('click', () => {\n"
"  document.getElementById('term').value = '';\n"
"  chart.clear();\n"
"  document.getElementById('details').textContent = '';\n"
"});\n"
"document.getElementById('reset').addEventListener('click', () => chart.resetZoom());\n"
/*
 * A link can carry a search and a zoom: FILE.html#search=TERM&zoom=NAME, the zoom a click
 * on the first frame of that name, as a reader's would be.
 */
"const asked = new URLSearchParams(location.hash.slice(1));\n"
"if (asked.get('search')) {\n"
"  document.getElementById('term').value = asked.get('search');\n"
"  chart.search(asked.get('search'));\n"
"}\n"
"const zoomTo = asked.get('zoom') && [...document.querySelectorAll('#chart g.frame')]\n"
"  .find(g => g.getAttribute('name') === asked.get('zoom'));\n"
/*
 * The page opens drawn whole, zoomed if asked, with no animation (duration 0, the timers
 * flushed): a headless browser runs animation frames when it likes under --dump-dom or
 * --screenshot, and would catch it midway. A reader's own clicks animate.
 */
"if (zoomTo) zoomTo.dispatchEvent(new MouseEvent('click', {bubbles: true}));\n"
"d3.timerFlush();\n"
"chart.transitionDuration(300);\n";

static const char page_style[] =
"body { font-family: Verdana, sans-serif; margin: 12px; }\n"
"h1 { font-size: 18px; margin: 0 0 4px; }\n"
"#acct { font-size: 13px; color: #444; margin: 0 0 8px; }\n"
"#search { margin: 0 0 8px; }\n"
"#details { font-size: 13px; min-height: 1.5em; margin-top: 6px; }\n";

/* A group's root frame as a JS value: its name, or null. */
static void js_root(FILE *f, const char *root)
{
	if (root)
		js_string(f, root);
	else
		fputs("null", f);
}

/* "N events: M in K stacks, B1 truncated, ..." of @g, prefixed by its root if any. */
static void html_acct(FILE *f, const struct stack_group *g)
{
	struct stack_bucket b[STACK_NR_BUCKETS];
	uint64_t in_stacks = 0;
	size_t i;

	stack_buckets(g->acct, b);
	for (i = 0; i < g->n; i++)
		in_stacks += g->e[i].count;
	if (g->root) {
		html_text(f, g->root);
		fputs(": ", f);
	}
	fprintf(f, "%llu events: %llu in %zu stack%s", (unsigned long long)g->acct->count,
		(unsigned long long)in_stacks, g->n, g->n == 1 ? "" : "s");
	for (i = 0; i < STACK_NR_BUCKETS; i++)
		fprintf(f, ", %llu %s", (unsigned long long)b[i].count, b[i].text);
}

/* @g's rows of STACKS: its entries, then its buckets that hold events. */
static void js_group(FILE *f, const struct stack_group *g)
{
	struct stack_bucket b[STACK_NR_BUCKETS];
	const struct stack_entry *e = g->e;
	size_t i;

	for (i = 0; i < g->n; i++) {
		fprintf(f, "[%llu,", (unsigned long long)e[i].count);
		js_root(f, g->root);
		fputc(',', f);
		js_root(f, e[i].key);
		fputc(',', f);
		js_frames(f, e[i].uframes, e[i].nu);
		fputc(',', f);
		js_frames(f, e[i].kframes, e[i].nk);
		fputs("],\n", f);
	}
	/* The events without a stack, each bucket a frame under the group's. */
	stack_buckets(g->acct, b);
	for (i = 0; i < STACK_NR_BUCKETS; i++) {
		if (!b[i].count)
			continue;
		fprintf(f, "[%llu,", (unsigned long long)b[i].count);
		js_root(f, g->root);
		fprintf(f, ",\"[%s]\",[],[]],\n", b[i].text);
	}
}

int stack_html_write(FILE *f, const char *title, const struct stack_group *g, size_t ng)
{
	uint64_t total = 0;
	size_t k;

	for (k = 0; k < ng; k++)
		total += g[k].acct->count;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	html_text(f, title);
	fprintf(f, "</title>\n<style>\n%s%s</style>\n", stack_viewer_css, page_style);
	fprintf(f, "<script>\n%s\n</script>\n<script>\n%s\n</script>\n</head>\n<body>\n<h1>",
		stack_viewer_d3, stack_viewer_flamegraph);
	html_text(f, title);
	fputs("</h1>\n<p id=\"acct\">", f);
	for (k = 0; k < ng; k++) {
		if (k)
			fputs("; ", f);
		html_acct(f, &g[k]);
	}
	fputs(". Click a frame to zoom, hover for its count.</p>\n"
	      "<form id=\"search\"><input id=\"term\" placeholder=\"function name or regexp\"> "
	      "<button type=\"submit\">Search</button> <button type=\"button\" id=\"clear\">"
	      "Clear</button> <button type=\"button\" id=\"reset\">Reset zoom</button></form>\n"
	      "<div id=\"chart\"></div>\n<div id=\"details\"></div>\n<script>\n", f);
	fprintf(f, "const TOTAL = %llu;\nconst STACKS = [\n", (unsigned long long)total);
	for (k = 0; k < ng; k++)
		js_group(f, &g[k]);
	fprintf(f, "];\n%s</script>\n</body>\n</html>\n", page_script);
	return ferror(f) ? -EIO : 0;
}

int stack_html_file(const char *path, const char *title, const struct stack_group *g,
		    size_t ng)
{
	char *tmp;
	FILE *f = stack_file_open(path, &tmp);

	if (!f)
		return -errno;
	return stack_file_close(f, tmp, path, stack_html_write(f, title, g, ng));
}
