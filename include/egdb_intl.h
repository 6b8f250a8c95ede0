/*
 * egdb_intl.h - Kingsrow's endgame database driver interface (egdb_intl)
 * for C++ engines, answered by draughts-tb's tables. Part of libdtb: link
 * with libdtb.a (plus -lpthread -ldl -lm) or libdtb.so.
 *
 * The names, types and value codes are those documented for egdb_intl
 * (its doc/reference.md), in namespace egdb_interface: an engine written
 * against that driver compiles against this header unchanged. Each call is
 * an inline wrapper over the C interface in dtb_egdb.h, which says what
 * each call does, what draughts-tb answers beyond Kingsrow's driver
 * (capture positions, the FMJD draw limits with rules=fmjd) and where it
 * differs (what is not built answers EGDB_UNKNOWN, never a guess). The
 * deprecated handle->function(handle, ...) access of old driver versions
 * is not offered.
 */
#ifndef DTB_EGDB_INTL_H
#define DTB_EGDB_INTL_H

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "dtb_egdb.h"

namespace egdb_interface {

/* Option names of egdb_open. */
#define MAXPIECES_OPTSTR "maxpieces"
#define MAXKINGS_1SIDE_8PCS_OPTSTR "maxkings_1side_8pcs"

typedef uint64_t EGDB_BITBOARD;

/* Bit (s-1) + (s-1)/10 for square s: bits 10, 21, 32 and 43 unused. */
struct EGDB_POSITION {
    EGDB_BITBOARD black;
    EGDB_BITBOARD white;
    EGDB_BITBOARD king;
};

enum EGDB_COLOR {
    EGDB_BLACK = DTB_EGDB_BLACK,
    EGDB_WHITE = DTB_EGDB_WHITE
};

enum WLD_VALUE {
    EGDB_SUBDB_UNAVAILABLE = DTB_EGDB_SUBDB_UNAVAILABLE,
    EGDB_NOT_IN_CACHE = DTB_EGDB_NOT_IN_CACHE,
    EGDB_UNKNOWN = DTB_EGDB_UNKNOWN,
    EGDB_WIN = DTB_EGDB_WIN,
    EGDB_LOSS = DTB_EGDB_LOSS,
    EGDB_DRAW = DTB_EGDB_DRAW,
    EGDB_DRAW_OR_LOSS = DTB_EGDB_DRAW_OR_LOSS,
    EGDB_WIN_OR_DRAW = DTB_EGDB_WIN_OR_DRAW
};

enum MTC_VALUE {
    MTC_UNKNOWN = DTB_EGDB_MTC_UNKNOWN,
    MTC_LESS_THAN_THRESHOLD = DTB_EGDB_MTC_LESS_THAN_THRESHOLD,
    MTC_THRESHOLD = DTB_EGDB_MTC_THRESHOLD
};

enum EGDB_TYPE {
    EGDB_WLD_RUNLEN = DTB_EGDB_WLD_RUNLEN,
    EGDB_MTC_RUNLEN = DTB_EGDB_MTC_RUNLEN,
    EGDB_WLD_HUFFMAN = DTB_EGDB_WLD_HUFFMAN,
    EGDB_WLD_TUN_V1 = DTB_EGDB_WLD_TUN_V1,
    EGDB_WLD_TUN_V2 = DTB_EGDB_WLD_TUN_V2
};

struct EGDB_VERIFY_MSGS {
    char crc_failed[80];
    char ok[80];
    char errors[80];
    char no_errors[80];
};

struct EGDB_STATS {
    unsigned int lru_cache_hits;
    unsigned int lru_cache_loads;
    unsigned int autoload_hits;
    unsigned int db_requests;
    unsigned int db_returns;
    unsigned int db_not_present_requests;
    float avg_ht_list_length;
};

/* Opaque: a token of the library, never dereferenced. */
struct EGDB_DRIVER;

namespace detail {
inline dtb_egdb_driver *c_handle(EGDB_DRIVER const *handle) {
    return reinterpret_cast<dtb_egdb_driver *>(const_cast<EGDB_DRIVER *>(handle));
}
} // namespace detail

inline EGDB_DRIVER *egdb_open(char const *options, int cache_mb, char const *directory,
                              void (*msg_fn)(char const *msg)) {
    return reinterpret_cast<EGDB_DRIVER *>(dtb_egdb_open(options, cache_mb, directory, msg_fn));
}

inline int egdb_lookup(EGDB_DRIVER *handle, EGDB_POSITION const *position, int color, int cl) {
    if (!position)
        return dtb_egdb_lookup(detail::c_handle(handle), nullptr, color, cl);
    dtb_egdb_position p = {position->black, position->white, position->king};
    return dtb_egdb_lookup(detail::c_handle(handle), &p, color, cl);
}

inline int egdb_close(EGDB_DRIVER *handle) {
    return dtb_egdb_close(detail::c_handle(handle));
}

inline int egdb_identify(char const *directory, EGDB_TYPE *egdb_type, int *max_pieces) {
    int type = 0;
    int status = dtb_egdb_identify(directory, &type, max_pieces);
    if (status == 0 && egdb_type)
        *egdb_type = static_cast<EGDB_TYPE>(type);
    return status;
}

inline int egdb_verify(EGDB_DRIVER const *handle, void (*msg_fn)(char const *msg), int *abort,
                       EGDB_VERIFY_MSGS *msgs) {
    if (!msgs)
        return dtb_egdb_verify(detail::c_handle(handle), msg_fn, abort, nullptr);
    dtb_egdb_verify_msgs words;
    for (int i = 0; i < 80; ++i) {
        words.crc_failed[i] = msgs->crc_failed[i];
        words.ok[i] = msgs->ok[i];
        words.errors[i] = msgs->errors[i];
        words.no_errors[i] = msgs->no_errors[i];
    }
    return dtb_egdb_verify(detail::c_handle(handle), msg_fn, abort, &words);
}

inline int egdb_get_pieces(EGDB_DRIVER const *handle, int *max_pieces, int *max_pieces_1side,
                           int *max_9pc_kings, int *max_8pc_kings_1side) {
    return dtb_egdb_get_pieces(detail::c_handle(handle), max_pieces, max_pieces_1side,
                               max_9pc_kings, max_8pc_kings_1side);
}

inline void egdb_reset_stats(EGDB_DRIVER *handle) {
    dtb_egdb_reset_stats(detail::c_handle(handle));
}

/* The same layout as dtb_egdb_stats (checked below): the driver's memory. */
inline EGDB_STATS *egdb_get_stats(EGDB_DRIVER const *handle) {
    return reinterpret_cast<EGDB_STATS *>(dtb_egdb_get_stats(detail::c_handle(handle)));
}

static_assert(sizeof(EGDB_STATS) == sizeof(dtb_egdb_stats), "EGDB_STATS layout");
static_assert(std::is_standard_layout<EGDB_STATS>::value, "EGDB_STATS layout");
static_assert(offsetof(EGDB_STATS, db_requests) == offsetof(dtb_egdb_stats, db_requests),
              "EGDB_STATS layout");
static_assert(offsetof(EGDB_STATS, avg_ht_list_length) ==
                  offsetof(dtb_egdb_stats, avg_ht_list_length),
              "EGDB_STATS layout");
static_assert(sizeof(EGDB_POSITION) == 24, "EGDB_POSITION is three 64-bit words");

} // namespace egdb_interface

#endif /* DTB_EGDB_INTL_H */
