/* report_devices.c - which device each case of `kbench report` ran on
 * (from its file's run record), one chart per device with its ceilings,
 * and every PASSED case placed under them (report.h). */
#include "drivers/report/report.h"

#include <ctype.h>
#include <string.h>

/* The device backend's cases in file s ran on, from the run record's
 * "backends" object: "device_kind" (in files before it, "device" was the
 * kind), a GPU's "device_uuid" and describe()'s name for it ("device").
 * The CPU when the record does not say. */
static kb_report_device backend_device(const kb_report_series *s, const char *backend)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(s->file.run, "backends"), backend);
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(b, "device_kind");
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(b, "device");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(b, "device_uuid");
    kb_report_device d = {"cpu", "", ""};
    if (cJSON_IsString(kind))
        d.kind = kind->valuestring;
    else if (cJSON_IsString(dev))
        d.kind = dev->valuestring;
    /* without a uuid describe() found no device: "none", "unknown (...)" */
    if (strcmp(d.kind, "cpu") != 0 && cJSON_IsString(id) && id->valuestring[0]) {
        d.id = id->valuestring;
        if (cJSON_IsString(kind) && cJSON_IsString(dev))
            d.name = dev->valuestring;
    }
    return d;
}

/* The model of device d as file s names it: the run record's CPU model,
 * or a GPU's name without describe()'s index ("0: "); "" when unknown. */
static const char *device_model(const kb_report_series *s, kb_report_device d)
{
    if (strcmp(d.kind, "cpu") == 0) {
        const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(s->file.run, "cpu_model");
        return cJSON_IsString(cpu) ? cpu->valuestring : "";
    }
    const char *colon = strstr(d.name, ": ");
    return colon && isdigit((unsigned char)d.name[0]) ? colon + 2 : d.name;
}

/* The chart of device d, added when new.  Returns its index, or -1 when
 * the report already has KB_REPORT_MAX_CHARTS. */
static int chart_of(kb_report *r, kb_report_device d)
{
    for (int i = 0; i < r->ncharts; i++)
        if (strcmp(r->charts[i].dev.kind, d.kind) == 0 &&
            strcmp(r->charts[i].dev.id, d.id) == 0)
            return i;
    if (r->ncharts == KB_REPORT_MAX_CHARTS)
        return -1;
    r->charts[r->ncharts].dev = d;
    return r->ncharts++;
}

/* The device's model as the files name it ("A vs B" when two files
 * name two), a CPU's from its ceilings when the files do not say. */
static void title_chart(kb_report_chart *ch, int nseries)
{
    const char *m[KB_SVG_MAX_SERIES] = {"", ""};
    bool cpu = strcmp(ch->dev.kind, "cpu") == 0;
    for (int k = 0; k < nseries; k++)
        if (ch->has[k])
            m[k] = ch->name[k][0] ? ch->name[k]
                 : cpu && ch->roof[k] ? ch->roof[k]->model : "";
    if (m[0][0] && m[1][0] && strcmp(m[0], m[1]) != 0)
        snprintf(ch->title, sizeof ch->title, "%s vs %s", m[0], m[1]);
    else if (m[0][0] || m[1][0])
        snprintf(ch->title, sizeof ch->title, "%s", m[0][0] ? m[0] : m[1]);
    else
        snprintf(ch->title, sizeof ch->title, "%s",
                 cpu ? "CPU model not recorded" : "device not identified");
}

/* Two passes, the CPU's cases first, so that its chart stays
 * roofline.svg; a GPU's ceilings are kb_roofline_device's: the GPU of the
 * same uuid, else the first of its kind. */
int kb_report_assign_charts(kb_report *r)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < r->ncases; i++) {
            kb_report_case *c = &r->cases[i];
            const kb_report_series *s = &r->s[c->series];
            kb_report_device d = backend_device(s, c->rc->backend);
            if ((strcmp(d.kind, "cpu") == 0) != (pass == 0))
                continue;
            if ((c->chart = chart_of(r, d)) < 0) {
                fprintf(stderr, "kbench report: the cases ran on more than %d "
                        "devices; report fewer result files or backends at a "
                        "time\n", KB_REPORT_MAX_CHARTS);
                return -1;
            }
            kb_report_chart *ch = &r->charts[c->chart];
            if (!ch->has[c->series]) {
                ch->has[c->series] = true;
                ch->name[c->series] = device_model(s, d);
                ch->roof[c->series] = s->ceil ? kb_roofline_device(s->ceil, d.kind, d.id)
                                              : NULL;
            }
        }
    if (r->ncharts == 0)    /* no case at all: still the (empty) chart */
        r->charts[r->ncharts++].dev = (kb_report_device){"cpu", "", ""};
    for (int i = 0; i < r->ncharts; i++)
        title_chart(&r->charts[i], r->nseries);
    return 0;
}

const char *kb_report_device_name(char *buf, size_t len, const kb_device *d)
{
    snprintf(buf, len, "%s%s%s%s%s", d->kind, d->model[0] ? " " : "", d->model,
             d->uuid[0] ? " " : "", d->uuid);
    return buf;
}

void kb_report_place(kb_report *r)
{
    for (size_t i = 0; i < r->ncases; i++) {
        kb_report_case *c = &r->cases[i];
        const kb_report_series *s = &r->s[c->series];
        const kb_report_device *d = &r->charts[c->chart].dev;
        if (strcmp(c->rc->status, "PASSED") != 0)
            continue;
        if (!s->ceil) {
            snprintf(c->why, sizeof c->why, "no ceilings file (--peaks)");
            continue;
        }
        kb_roofline_case q = {d->kind, c->rc->dtype, r->level, c->rc->flops,
                              c->rc->bytes, c->rc->gflops, d->id};
        c->placed = kb_roofline_place(s->ceil, &q, &c->pl, c->why, sizeof c->why) == 0;
        char name[256];
        if (c->placed && d->id[0] && strcmp(c->pl.device->uuid, d->id) != 0)
            snprintf(c->why, sizeof c->why, "under %s's ceilings: none were "
                     "measured on this GPU",
                     kb_report_device_name(name, sizeof name, c->pl.device));
    }
}
