/*
 * caption.h - the caption report's text views open with: what the
 * profile is (its file's name, samples, rate and engine; a wall
 * profile's threads' time on and off the CPU; weighted samples' worth),
 * then a note for each thing its shares cannot show (time that went
 * unsampled, buckets shared between functions, stacks cut short).
 */
#ifndef PROFIL_REPORT_CAPTION_H
#define PROFIL_REPORT_CAPTION_H

#include <stddef.h>

#include <profil.h>

/*
 * The caption into caption (size bytes, cut to fit), for the profile as
 * recorded (read from the file called name) shown as view: recorded
 * itself, its wall view, or with cpu_only its CPU part (report --cpu;
 * profile/wall-view.h).  The cuts and a wall profile's times are the
 * recorded profile's, the rest the view's.
 */
void caption_make(char *caption, size_t size,
    const struct profil_profile *recorded, const struct profil_profile *view,
    int cpu_only, const char *name);

#endif
