/*
 * dtb.h - C interface of the draughts-tb prober (libdtb), version 0.2.
 *
 * Endgame tablebases for international draughts (10x10, FMJD rules), built
 * by `dtb gen`. Link with libdtb.a (plus -lpthread -ldl -lm) or libdtb.so.
 *
 * Positions:
 *   - as three 64-bit masks: `white` (all white pieces), `black` (all black
 *     pieces), `kings` (the kings of both colours); bit i stands for square
 *     i + 1 (squares 1..50 in the standard numbering, bits 50..63 must be
 *     zero), plus the side to move (DTB_WHITE or DTB_BLACK);
 *   - or as PDN FEN text, e.g. "W:W31,32,K28:B1,2,K12".
 *
 * Values are from the view of the side to move: DTB_WIN (1), DTB_DRAW (0),
 * DTB_LOSS (-1). Capture positions are resolved by the library (captures
 * are compulsory; the majority rule applies): any legal position may be
 * probed.
 *
 * The draw counter: in the FMJD counted endings (a lone king against three
 * pieces or fewer including a king) the result depends on `plies_left`, the
 * number of plies that may still be played before the 16-move or 5-move
 * limit declares the draw (a win completed on the last of them counts).
 * Pass DTB_PLIES_FRESH when the ending was just entered (32 or 10 plies).
 * Outside the counted endings, and with DTB_RULES_PURE, it is ignored.
 *
 * Errors: every function returns DTB_OK (0) or a negative DTB_ERR_* code
 * (but dtb_max_pieces, dtb_install_sigbus_guard, dtb_last_error and
 * dtb_version, which say what they return); dtb_last_error() then
 * describes the failure. No function aborts or lets a
 * Rust panic escape: an internal bug returns DTB_ERR_INTERNAL.
 *
 * Table files: a table rewritten or cut short in place while the library
 * has it mapped is noticed before the next read of it; the library then
 * opens it again (and answers from the new content if valid) or returns
 * DTB_ERR_CORRUPTED_TABLE. A file cut short *during* a read raises SIGBUS,
 * which ends the process as with any mapped file, unless the program asked
 * for dtb_install_sigbus_guard() (see there) or opened the tables with
 * DTB_STORAGE_PREAD (dtb_open_with), which never maps them. The library installs no
 * signal handler by itself. A program that installs its own SIGBUS handler
 * after the guard should pass unknown signals on to the previous one.
 *
 * Threads: a dtb_tablebase is thread-safe. Open one per table directory and
 * share it between all search threads; every function may be called
 * concurrently on the same handle, dtb_close included: calls already
 * running when it is closed finish normally; calls that start after it
 * fail as below. The memory (tables mapped, decoded blocks) is freed once
 * every thread that used the handle has made another dtb call or ended:
 * each thread keeps the handle it used last, so that a probe does not
 * write memory shared with other threads.
 *
 * Handles: a dtb_tablebase * is an opaque token, not the address of
 * memory: never dereference it. The library checks every handle against
 * its list of open ones before using it, and a handle is never reused
 * within a process, so a call with a handle that was closed (or never
 * returned by dtb_open) returns DTB_ERR_BAD_ARGUMENT with the message
 * "closed or unknown tablebase handle" (dtb_max_pieces: -1), and a second
 * dtb_close of the same handle returns DTB_ERR_BAD_ARGUMENT. That is
 * defined behaviour, not a crash.
 *
 * Ownership: the library owns the dtb_tablebase (free it with dtb_close
 * only). Strings passed in are borrowed for the duration of the call.
 * Output pointers may be NULL where marked "optional"; the library writes
 * only through non-NULL ones.
 *
 * Still undefined: pointers other than the handle are trusted. A `dir` or
 * `fen` that is not a readable NUL-terminated string, an output pointer or
 * `buf` that is not writable for its size, or a dtb_last_error() string
 * used after the next dtb call on its thread is undefined behaviour, as in
 * any C library.
 */
#ifndef DTB_H
#define DTB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * 0.2 changed the interface of 0.1: the DTB_RULES_* numbers are now the
 * header's rule-set codes (0 pure, 1 fmjd, 2 fmjd-diagonal; 0.1 had
 * 0 fmjd, 1 fmjd-diagonal, 2 pure), dtb_close returns an int, and dtb_open
 * returns NULL when the rule set's folder is missing. Rebuild against
 * this header; check dtb_version() at run time if in doubt.
 */
#define DTB_VERSION_MAJOR 0
#define DTB_VERSION_MINOR 2

/* Status codes. */
#define DTB_OK 0
#define DTB_ERR_BAD_ARGUMENT (-1)     /* NULL/closed handle, NULL buffer, bad rules/side/plies */
#define DTB_ERR_INVALID_POSITION (-2) /* impossible position or bad FEN */
#define DTB_ERR_MISSING_TABLE (-3)    /* a needed table is not in the directory */
#define DTB_ERR_CORRUPTED_TABLE (-4)  /* a table is damaged or of another rule set */
#define DTB_ERR_NOT_CACHED (-5)       /* dtb_probe_wdl_if_cached: not in memory */
#define DTB_ERR_IO (-6)               /* an I/O error */
#define DTB_ERR_TOO_MANY_PIECES (-7)  /* more pieces than any table */
#define DTB_ERR_INTERNAL (-8)         /* a bug in the library */

/*
 * Rule sets (the tables of each live in <dir>/pure, fmjd, fmjd-diagonal).
 * The numbers are the rule-set codes of the table file header (FORMAT.md).
 * Earlier builds of this header numbered them 0 fmjd, 1 fmjd-diagonal,
 * 2 pure: pass the names, not the numbers.
 */
#define DTB_RULES_PURE 0          /* no move limits (the classic databases) */
#define DTB_RULES_FMJD 1          /* FMJD: the 16-move and 5-move limits */
#define DTB_RULES_FMJD_DIAGONAL 2 /* FMJD plus the long-diagonal limit */

/* Sides. */
#define DTB_WHITE 0
#define DTB_BLACK 1

/* Values for the side to move. */
#define DTB_LOSS (-1)
#define DTB_DRAW 0
#define DTB_WIN 1

/* plies_left: the counted ending was just entered. */
#define DTB_PLIES_FRESH (-1)

/* A buffer of this size always holds a move in PDN. */
#define DTB_MOVE_BUFFER 64

/*
 * The version of this interface: 3 added dtb_counts, dtb_move_value,
 * dtb_move_values and dtb_abi_version; every call of version 2 is kept
 * unchanged. dtb_abi_version() says what the library linked offers.
 */
#define DTB_ABI_VERSION 3

/* An array of this many dtb_move_value holds every legal move of any
 * position the tables hold (dtb_move_values). */
#define DTB_MAX_MOVES 256

typedef struct DtbTablebase dtb_tablebase;

/*
 * The draw counts of a position: plies_left on the 16- or 5-move count
 * (0..32, or DTB_PLIES_FRESH when the ending was just entered) and
 * kings_only_plies, the 25-move rule's count (0..49: plies played in a row
 * with only kings moving, no capture and no man move). A fresh position:
 * { DTB_PLIES_FRESH, 0 }.
 */
typedef struct dtb_counts {
    int plies_left;
    int kings_only_plies;
} dtb_counts;

/*
 * One legal move and what it leads to, for the side to move at the root.
 * Distances are in plies, -1 where they do not apply (or for a draw):
 * dtc, the distance to conversion through the move (1 when the move
 * itself captures or moves a man; needs the .dtc files); counted_threshold,
 * the plies the 16- or 5-move count must have left for the result to hold
 * (fmjd rule sets); lone_king_plies, under DTB_RULES_PURE the plies until
 * the lone-king endings are left with the result settled. The counts the
 * move passes on: plies_left_after (-1 where no count runs) and
 * kings_only_plies_after (-1 where the 25-move rule does not apply).
 */
typedef struct dtb_move_value {
    char text[DTB_MOVE_BUFFER]; /* the move in PDN, NUL-terminated */
    int wdl;                    /* DTB_WIN, DTB_DRAW or DTB_LOSS */
    int dtc;
    int counted_threshold;
    int lone_king_plies;
    int plies_left_after;
    int kings_only_plies_after;
} dtb_move_value;

/*
 * Opens the tables of `rules` (a DTB_RULES_* value) under directory `dir`:
 * those of the folder <dir>/<rule set>, or of `dir` itself where it holds
 * the tables, whatever its name (their headers must name `rules`). Tables
 * are read lazily, on first use. `cache_bytes` bounds the memory for
 * decoded blocks (0: 64 MiB). Returns NULL on a bad argument, when there
 * is no such folder, or when `dir` holds tables of another rule set (see
 * dtb_last_error).
 * Ownership: the caller owns the handle and frees it with dtb_close.
 * Threads: may be called from any thread.
 */
dtb_tablebase *dtb_open(const char *dir, int rules, uint64_t cache_bytes);

/* How dtb_open_with reads table files. */
#define DTB_STORAGE_MAPPED 0 /* memory-mapped, as dtb_open does */
#define DTB_STORAGE_PREAD 1  /* positioned reads (pread): never mapped */

/*
 * dtb_open, choosing how files are read. DTB_STORAGE_MAPPED maps them
 * (the page cache is shared between processes; see "Table files" above
 * for a file cut short during a read). DTB_STORAGE_PREAD reads each block
 * with one positioned read into the block cache: no mapping, no SIGBUS
 * ever (a file cut short gives DTB_ERR_CORRUPTED_TABLE), for tables on a
 * network filesystem or a program that owns SIGBUS. Any other `storage`
 * returns NULL (DTB_ERR_BAD_ARGUMENT's message in dtb_last_error).
 * Ownership and threads: as dtb_open.
 */
dtb_tablebase *dtb_open_with(const char *dir, int rules, uint64_t cache_bytes, int storage);

/*
 * Closes a handle from dtb_open and frees its memory: DTB_OK (also for
 * NULL, which is ignored), DTB_ERR_BAD_ARGUMENT for a handle already closed
 * or never opened. Threads: safe to call while other threads use `tb`
 * (their running calls finish; later ones return DTB_ERR_BAD_ARGUMENT).
 */
int dtb_close(dtb_tablebase *tb);

/*
 * Win/draw/loss for the side to move into *wdl (required).
 * plies_left: 0..32, or DTB_PLIES_FRESH.
 * Threads: safe to call concurrently on one handle.
 */
int dtb_probe_wdl(const dtb_tablebase *tb, uint64_t white, uint64_t black, uint64_t kings,
                  int side_to_move, int plies_left, int *wdl);

/* dtb_probe_wdl for a position in PDN (`fen` borrowed). Thread-safe. */
int dtb_probe_wdl_fen(const dtb_tablebase *tb, const char *fen, int plies_left, int *wdl);

/*
 * dtb_probe_wdl under the 25-move rule too: kings_only_plies (0..49) plies
 * have been played in a row with only kings moving, no capture and no man
 * move. Under DTB_RULES_FMJD and DTB_RULES_FMJD_DIAGONAL, outside the 16-
 * and 5-move endings, a win or loss with distance to conversion d holds if
 * kings_only_plies + d <= 50 and is a draw otherwise; above 0 a decided
 * position needs its .dtc file (DTB_ERR_MISSING_TABLE without it).
 * kings_only_plies 0 answers as dtb_probe_wdl. Thread-safe.
 */
int dtb_probe_wdl_kings_only(const dtb_tablebase *tb, uint64_t white, uint64_t black,
                             uint64_t kings, int side_to_move, int plies_left,
                             int kings_only_plies, int *wdl);

/* dtb_probe_wdl_kings_only for a position in PDN (`fen` borrowed). Thread-safe. */
int dtb_probe_wdl_kings_only_fen(const dtb_tablebase *tb, const char *fen, int plies_left,
                                 int kings_only_plies, int *wdl);

/*
 * Like dtb_probe_wdl, but answers only from memory already decoded, never
 * reading a file (for use deep in a search): DTB_ERR_NOT_CACHED otherwise.
 * Thread-safe.
 */
int dtb_probe_wdl_if_cached(const dtb_tablebase *tb, uint64_t white, uint64_t black,
                            uint64_t kings, int side_to_move, int plies_left, int *wdl);

/*
 * The stored result and its distance: *wdl (optional) the result when
 * enough plies are left; *plies (optional) the distance: in the counted
 * endings the smallest plies_left at which the result holds (under
 * DTB_RULES_PURE the plies to the result within the lone-king endings), -1
 * for draws and for materials whose tables keep no distance.
 * Thread-safe.
 */
int dtb_probe_distance(const dtb_tablebase *tb, uint64_t white, uint64_t black, uint64_t kings,
                       int side_to_move, int *wdl, int *plies);

/* dtb_probe_distance for a position in PDN (`fen` borrowed). Thread-safe. */
int dtb_probe_distance_fen(const dtb_tablebase *tb, const char *fen, int *wdl, int *plies);

/*
 * The distance to conversion (DTC) in plies: *dtc (optional) the plies,
 * the conversion included, until the next capture or man move on the best
 * path that keeps the result (the winner's shortest, the loser's longest);
 * 0 when the side to move has no move, 1 in a capture position, -1 for a
 * draw; 255 means 255 or more. Inside the counted endings it assumes a
 * freshly entered count (dtb_probe_distance gives the count it needs).
 * Reads the .dtc files that `dtb gen --dtc` writes: DTB_ERR_MISSING_TABLE
 * without them. Thread-safe.
 */
int dtb_probe_dtc(const dtb_tablebase *tb, uint64_t white, uint64_t black, uint64_t kings,
                  int side_to_move, int *dtc);

/* dtb_probe_dtc for a position in PDN (`fen` borrowed). Thread-safe. */
int dtb_probe_dtc_fen(const dtb_tablebase *tb, const char *fen, int *dtc);

/*
 * A best move: a win of least distance (in the counted endings, the plies
 * the count must have left), then of least DTC where the .dtc files are
 * there, so that following it always makes progress; else a draw; else
 * the longest defence. The move is written in PDN
 * (e.g. "32-28", "28x39") as a NUL-terminated string into `buf` (required,
 * `buf_len` bytes; DTB_MOVE_BUFFER always suffices). *wdl (optional): the
 * result the move leads to for the side to move; *plies (optional): its
 * distance or -1. DTB_ERR_INVALID_POSITION if there is no legal move.
 * Thread-safe.
 */
int dtb_best_move(const dtb_tablebase *tb, uint64_t white, uint64_t black, uint64_t kings,
                  int side_to_move, int plies_left, char *buf, size_t buf_len, int *wdl,
                  int *plies);

/* dtb_best_move for a position in PDN (`fen` borrowed). Thread-safe. */
int dtb_best_move_fen(const dtb_tablebase *tb, const char *fen, int plies_left, char *buf,
                      size_t buf_len, int *wdl, int *plies);

/*
 * dtb_best_move_fen under the 25-move rule too (kings_only_plies as in
 * dtb_probe_wdl_kings_only): a move that would reach a decided position too
 * late for the rule counts as a draw, so a win never slips. Thread-safe.
 */
int dtb_best_move_kings_only_fen(const dtb_tablebase *tb, const char *fen, int plies_left,
                                 int kings_only_plies, char *buf, size_t buf_len, int *wdl,
                                 int *plies);

/*
 * Every legal move of the position with its value and distances, best
 * first (wins by least counted_threshold, then least dtc; draws; losses
 * longest first), as `dtb probe --json` lists them: for an engine that
 * keeps only the root moves that hold the result. Writes *count (required)
 * the number of legal moves and the moves into `moves` (`capacity`
 * entries; NULL with capacity 0 asks for the count only, DTB_MAX_MOVES
 * always suffices). A position with more moves than `capacity` returns
 * DTB_ERR_BAD_ARGUMENT (with *count set) and writes no move. A position
 * with no legal move has *count 0. `counts` as dtb_counts says; a decided
 * position with kings_only_plies above 0 needs its .dtc file.
 * Thread-safe.
 */
int dtb_move_values(const dtb_tablebase *tb, uint64_t white, uint64_t black, uint64_t kings,
                    int side_to_move, dtb_counts counts, dtb_move_value *moves,
                    size_t capacity, size_t *count);

/* dtb_move_values for a position in PDN (`fen` borrowed). Thread-safe. */
int dtb_move_values_fen(const dtb_tablebase *tb, const char *fen, dtb_counts counts,
                        dtb_move_value *moves, size_t capacity, size_t *count);

/* DTB_ABI_VERSION of the library linked (3 for this header). */
int dtb_abi_version(void);

/*
 * The largest N such that the table of every material of up to N pieces is
 * in the directory (0 if none), -1 for a NULL, closed or unknown handle
 * (dtb_last_error says which). Reads the directory
 * listing. Thread-safe.
 */
int dtb_max_pieces(const dtb_tablebase *tb);

/*
 * The message of the last failed call on the calling thread ("" if none).
 * Ownership: the library owns the string; it stays valid until the next
 * dtb call on the same thread. Thread-safe (one message per thread).
 */
const char *dtb_last_error(void);

/* The library version, e.g. "0.2.0" (static storage). Thread-safe. */
const char *dtb_version(void);

/*
 * Installs the SIGBUS guard. Tables are memory-mapped; a table file cut
 * short by another process in the middle of a read raises SIGBUS, which
 * ends the process, as with any mapped file. The library installs no
 * signal handler by itself. This call installs a process-wide SIGBUS
 * handler (sigaction, SA_SIGINFO | SA_ONSTACK) that turns such a fault
 * into DTB_ERR_CORRUPTED_TABLE for the probe that hit it and hands every other
 * SIGBUS to the handler installed before it (or to the default action).
 * Call it once, early, and only if no runtime of yours (a sanitizer, a
 * JVM) owns SIGBUS. A table rewritten in place between probes is noticed
 * without it. Returns 1 if the guard was installed (now or before), 0 if
 * it could not be (only Linux has it; or sigaction refused), and
 * DTB_ERR_INTERNAL on a bug in the library. Thread-safe.
 */
int dtb_install_sigbus_guard(void);

#ifdef __cplusplus
}
#endif

#endif /* DTB_H */
