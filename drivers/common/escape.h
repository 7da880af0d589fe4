/* escape.h - text from input files (host, layer and model names, reasons)
 * made safe for the formats kbench writes: XML (SVG, HTML, JUnit) and
 * Markdown.  One escaper per format, shared by every verb. */
#ifndef KB_ESCAPE_H
#define KB_ESCAPE_H

#include <stdio.h>

/* s XML-escaped onto f, fit for text and attribute values: & < > " '
 * as entities, tab and newlines as character references (attribute
 * normalisation would turn them into spaces), other control characters
 * and invalid UTF-8, which XML 1.0 cannot hold, as '?'.  NULL writes
 * nothing.  Can't fail (a write error stays in ferror(f)). */
void kb_xml_escape(FILE *f, const char *s);

/* s onto f as text for a Markdown table cell or paragraph: | and <
 * escaped (a layer or host name must not turn into a table column or an
 * HTML tag), newlines turned into spaces.  NULL writes nothing.  Can't
 * fail. */
void kb_md_escape(FILE *f, const char *s);

#endif
