/*
 * prf.h - the .prf profile file format (docs/prf-format.md, profil.5):
 * constants shared by the encoder (prf-encode.c) and the decoder
 * (prf-decode*.c); prf-internal.h lists the codec's files.
 *
 *   file    := magic[8] version:u32 record* end-record
 *   record  := tag:u16 flags:u16 length:u32 payload[length]
 */
#ifndef PROFIL_PRF_H
#define PROFIL_PRF_H

#define PRF_MAGIC		"\x89PRF\r\n\x1a\n"
#define PRF_MAGIC_LEN		8
#define PRF_VERSION		2	/* with wall data; else 1 */
#define PRF_VERSION_CPU		1	/* a profile of CPU time only */

#define PRF_TAG_HEADER		1
#define PRF_TAG_OBJECT		2
#define PRF_TAG_THREAD		3
#define PRF_TAG_PROCESS		4
#define PRF_TAG_KERNEL		5	/* optional */
#define PRF_TAG_SYMBOLS		6	/* optional */
#define PRF_TAG_STACKS		7	/* optional */
#define PRF_TAG_WEIGHTS		8	/* optional */
#define PRF_TAG_WALL		9	/* version 2: a wall profile's */
#define PRF_TAG_LINES		10	/* optional */
#define PRF_TAG_FP_FRAMES	11	/* optional, after the stacks */
#define PRF_TAG_REFUSED		12	/* optional */
#define PRF_TAG_TIMELINE	13	/* optional, after the stacks */
#define PRF_TAG_END		0xffff

#define PRF_FLAG_OPTIONAL	0x0001	/* readers may skip it if unknown */

#define PRF_HIST_DENSE		0
#define PRF_HIST_SPARSE		1

#define PRF_MAX_PATH		4096
#define PRF_MAX_NAME		256
#define PRF_MAX_ARGS		65536
#define PRF_MAX_BUCKET		(1u << 20)
#define PRF_MAX_DEPTH		4096	/* frames of one stack */

#endif
