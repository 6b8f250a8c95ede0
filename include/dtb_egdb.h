/*
 * dtb_egdb.h - the interface of Kingsrow's endgame database driver
 * (egdb_intl) over draughts-tb tables, for C. Part of libdtb: link with
 * libdtb.a (plus -lpthread -ldl -lm) or libdtb.so.
 *
 * C++ engines include <egdb_intl.h> instead, which gives these calls the
 * driver's own names in namespace egdb_interface (egdb_open, egdb_lookup,
 * EGDB_POSITION, EGDB_WIN, ...). Here every name carries the prefix
 * dtb_egdb_ / DTB_EGDB_ and means what the unprefixed one means in the
 * driver's documentation (egdb_intl's doc/reference.md); this header says
 * where draughts-tb answers more or differently.
 *
 * Positions: three 64-bit words, Black's pieces, White's pieces and the
 * kings of both colours. Square s (1..50, the standard numbering, White's
 * men moving towards squares 1-5) is bit (s-1) + (s-1)/10: bit 0 square 1
 * ... bit 9 square 10, bit 10 unused, bit 11 square 11, ...; bits 10, 21,
 * 32, 43 and 54-63 are always zero. Colours: DTB_EGDB_BLACK 0,
 * DTB_EGDB_WHITE 1 (not the DTB_WHITE 0 / DTB_BLACK 1 of dtb.h).
 *
 * Values (for the side to move): DTB_EGDB_WIN 1, DTB_EGDB_LOSS 2,
 * DTB_EGDB_DRAW 3; DTB_EGDB_NOT_IN_CACHE -1 for a conditional lookup that
 * would read the disk; DTB_EGDB_UNKNOWN 0 for everything that has no
 * value here: more pieces than the tables or the `maxpieces` option, a
 * material whose table is not built, a bad position or colour, a damaged
 * table, a NULL or closed handle. Never a guess. Unlike Kingsrow's
 * tables, capture positions (for either side) are answered correctly: the
 * library resolves captures itself, so an engine need not keep them away.
 * DTB_EGDB_SUBDB_UNAVAILABLE, DTB_EGDB_DRAW_OR_LOSS and
 * DTB_EGDB_WIN_OR_DRAW are defined for engines that test them and never
 * returned.
 *
 * Rules: the values come from the `pure` tables (no move limits: what
 * Kingsrow's databases hold) unless the options say `rules=fmjd` or
 * `rules=fmjd-diagonal`. fmjd values assume a freshly entered 16- or
 * 5-move ending and a fresh 25-move count (dtb.h takes the counters).
 *
 * Errors and problems are told through the message function given to
 * dtb_egdb_open (each distinct message once per driver) and, for the
 * calling thread, by dtb_last_error() of dtb.h. No call aborts the
 * process or lets a Rust panic escape. The message function may be called
 * from any thread that uses the driver; it must return normally (no C++
 * exception, no longjmp) and must not call the driver's functions.
 *
 * Threads: a driver is thread-safe; every call may run concurrently on
 * one handle, but dtb_egdb_get_stats (see there). Handles are opaque
 * tokens checked against the open ones at every call (never
 * dereferenced), so a NULL, closed or made-up handle is an error, not a
 * crash. A closed driver's memory (its block cache, its open files) is
 * freed once every thread that used it has made another dtb call or
 * ended, as for dtb.h's handles. Other pointers are trusted as in any C
 * library.
 */
#ifndef DTB_EGDB_H
#define DTB_EGDB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Colours (the side to move). */
#define DTB_EGDB_BLACK 0
#define DTB_EGDB_WHITE 1

/* Values of dtb_egdb_lookup on a WLD driver (the default, db=wld). */
#define DTB_EGDB_SUBDB_UNAVAILABLE (-2) /* never returned */
#define DTB_EGDB_NOT_IN_CACHE (-1)
#define DTB_EGDB_UNKNOWN 0
#define DTB_EGDB_WIN 1
#define DTB_EGDB_LOSS 2
#define DTB_EGDB_DRAW 3
#define DTB_EGDB_DRAW_OR_LOSS 4 /* never returned */
#define DTB_EGDB_WIN_OR_DRAW 5  /* never returned */

/*
 * Values of dtb_egdb_lookup on an MTC driver (opened with db=mtc, which
 * reads the .dtc files of `dtb gen --dtc`): DTB_EGDB_MTC_UNKNOWN for a
 * draw or a position outside the tables; DTB_EGDB_MTC_LESS_THAN_THRESHOLD
 * when the conversion (a capture or a man move) is fewer than
 * DTB_EGDB_MTC_THRESHOLD plies away; else the plies to the conversion,
 * the conversion included, rounded down to even (the true distance is the
 * value or the value plus one). docs/engines.md compares this with Kingsrow's
 * MTC database, with examples.
 */
#define DTB_EGDB_MTC_UNKNOWN 0
#define DTB_EGDB_MTC_LESS_THAN_THRESHOLD 1
#define DTB_EGDB_MTC_THRESHOLD 10

/* Database types (dtb_egdb_identify reports DTB_EGDB_WLD_TUN_V2). */
#define DTB_EGDB_WLD_RUNLEN 0
#define DTB_EGDB_MTC_RUNLEN 1
#define DTB_EGDB_WLD_HUFFMAN 2
#define DTB_EGDB_WLD_TUN_V1 3
#define DTB_EGDB_WLD_TUN_V2 4

/* EGDB_POSITION (layout above). */
typedef struct dtb_egdb_position {
    uint64_t black;
    uint64_t white;
    uint64_t king;
} dtb_egdb_position;

/* EGDB_STATS. The cache fields are always 0 (the block cache keeps no
 * counts); db_not_present_requests counts lookups outside the tables. */
typedef struct dtb_egdb_stats {
    unsigned int lru_cache_hits;
    unsigned int lru_cache_loads;
    unsigned int autoload_hits;
    unsigned int db_requests;
    unsigned int db_returns;
    unsigned int db_not_present_requests;
    float avg_ht_list_length;
} dtb_egdb_stats;

/* EGDB_VERIFY_MSGS: the words dtb_egdb_verify reports with. */
typedef struct dtb_egdb_verify_msgs {
    char crc_failed[80];
    char ok[80];
    char errors[80];
    char no_errors[80];
} dtb_egdb_verify_msgs;

/* EGDB_DRIVER: opaque. */
typedef struct DtbEgdbDriver dtb_egdb_driver;

/*
 * egdb_open. `options`: NULL, "" or "name=value" items separated by ';':
 *   maxpieces=N            look up positions of at most N pieces
 *   maxkings_1side_8pcs=N  in 8-piece positions at most N kings a side
 *   rules=pure|fmjd|fmjd-diagonal   the rule set (default pure)
 *   db=wld|mtc             win/loss/draw (default) or moves to conversion
 * An unknown option or value is an error. `cache_mb`: MiB for decoded
 * blocks (0 or less: 64). `directory`: a folder that holds the tables
 * themselves, whatever its name (data/pure, C:/db_intl/wld_v2; their rule
 * set is read from their headers, and must be `rules` where given), or
 * the folder above the rule sets' folders (data; without `rules` the
 * first of pure, fmjd, fmjd-diagonal found there). `msg_fn` (may be NULL) receives a status line
 * on opening and every error. Returns NULL on error (told through msg_fn
 * and dtb_last_error), also when the directory holds no tables.
 */
dtb_egdb_driver *dtb_egdb_open(const char *options, int cache_mb, const char *directory,
                               void (*msg_fn)(const char *msg));

/*
 * egdb_lookup: the value of `position` with `color` to move (values
 * above). `cl` non-zero: answer only from memory already decoded, else
 * DTB_EGDB_NOT_IN_CACHE (an MTC driver ignores `cl`). Thread-safe.
 */
int dtb_egdb_lookup(dtb_egdb_driver *handle, const dtb_egdb_position *position, int color, int cl);

/* egdb_close: 0 on success, non-zero for NULL or a handle not open. */
int dtb_egdb_close(dtb_egdb_driver *handle);

/*
 * egdb_identify: 0 if the folder dtb_egdb_open would read for `directory`
 * without options holds tables; then
 * *egdb_type = DTB_EGDB_WLD_TUN_V2 and *max_pieces = the most pieces of a
 * table. Non-zero otherwise, the out-parameters unchanged. NULL
 * out-pointers are skipped.
 */
int dtb_egdb_identify(const char *directory, int *egdb_type, int *max_pieces);

/*
 * egdb_verify: checks the checksum of every file the driver reads,
 * telling each through `msg_fn` with the words of `msgs` (English when
 * NULL); stops when *abort becomes non-zero. 0 if every file passed.
 */
int dtb_egdb_verify(const dtb_egdb_driver *handle, void (*msg_fn)(const char *msg), int *abort,
                    dtb_egdb_verify_msgs *msgs);

/*
 * egdb_get_pieces: the most pieces looked up (the largest table, at most
 * `maxpieces`), the most pieces of one side, 0 (no 9-piece tables), and
 * the most kings of one side in the 8-piece tables used (at most
 * `maxkings_1side_8pcs`; 0 where none is used). 0 on
 * success, non-zero for a bad handle. NULL out-pointers are skipped.
 */
int dtb_egdb_get_pieces(const dtb_egdb_driver *handle, int *max_pieces, int *max_pieces_1side,
                        int *max_9pc_kings, int *max_8pc_kings_1side);

/* egdb_reset_stats: sets the counts to 0. */
void dtb_egdb_reset_stats(dtb_egdb_driver *handle);

/*
 * egdb_get_stats: a snapshot of the counts since opening or the last
 * reset, in memory the driver owns, rewritten by its next
 * dtb_egdb_get_stats (call it from one thread at a time) and valid until
 * the driver is freed; NULL for a bad handle.
 */
dtb_egdb_stats *dtb_egdb_get_stats(const dtb_egdb_driver *handle);

#ifdef __cplusplus
}
#endif

#endif /* DTB_EGDB_H */
