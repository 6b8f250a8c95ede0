/*
 * egdb_misuse: bad input through the C form of the egdb interface. Every
 * call must answer (DTB_EGDB_UNKNOWN, NULL or non-zero) and tell through
 * the message function, never crash.
 *
 *   egdb_misuse ROOT
 *
 * ROOT holds pure tables up to at least 2 pieces (ROOT/pure). Prints one
 * "name value" line per check, then "ok".
 */
#include <stdio.h>
#include <string.h>

#include "dtb_egdb.h"

static int messages;
static char last_message[512];

static void count_msg(const char *msg) {
    ++messages;
    snprintf(last_message, sizeof last_message, "%s", msg);
}

static uint64_t bit(int square) {
    int s = square - 1;
    return (uint64_t)1 << (s + s / 10);
}

static int lookup(dtb_egdb_driver *db, uint64_t black, uint64_t white, uint64_t king, int color) {
    dtb_egdb_position p;
    p.black = black;
    p.white = white;
    p.king = king;
    return dtb_egdb_lookup(db, &p, color, 0);
}

/* Prints the check and whether a message came with it. */
static void report(const char *name, long value, int before) {
    printf("%s %ld%s\n", name, value, messages > before ? " told" : "");
}

int main(int argc, char **argv) {
    if (argc != 2)
        return 2;
    char pure[4096];
    snprintf(pure, sizeof pure, "%s/pure", argv[1]);
    int m = messages;
    report("open_null_dir", (long)(dtb_egdb_open("", 0, NULL, count_msg) != NULL), m);
    m = messages;
    report("open_bad_option", (long)(dtb_egdb_open("colour=red", 0, argv[1], count_msg) != NULL), m);
    m = messages;
    report("open_bad_number", (long)(dtb_egdb_open("maxpieces=x", 0, argv[1], count_msg) != NULL), m);
    m = messages;
    report("open_missing_dir", (long)(dtb_egdb_open("", 0, "/no/such/dir", count_msg) != NULL), m);
    m = messages;
    report("open_rules_mismatch", (long)(dtb_egdb_open("rules=fmjd", 0, pure, count_msg) != NULL), m);
    m = messages;
    report("open_mtc_without_dtc", (long)(dtb_egdb_open("rules=fmjd; db=mtc", 0, argv[1], count_msg) != NULL), m);

    int type = -7, pieces = -7;
    report("identify_missing", dtb_egdb_identify("/no/such/dir", &type, &pieces), messages);
    report("identify_unchanged", (long)(type == -7 && pieces == -7), messages);
    report("identify_null", dtb_egdb_identify(NULL, &type, &pieces), messages);
    report("identify", dtb_egdb_identify(argv[1], &type, &pieces), messages);
    report("identify_type", type, messages);

    m = messages;
    dtb_egdb_driver *db = dtb_egdb_open("maxpieces=4", 0, pure, count_msg);
    report("open", (long)(db != NULL), m);
    if (!db)
        return 1;
    int max_pieces = -1, one_side = -1, nine = -1, eight = -1;
    report("get_pieces", dtb_egdb_get_pieces(db, &max_pieces, &one_side, &nine, &eight), messages);
    printf("pieces %d %d %d %d\n", max_pieces, one_side, nine, eight);

    uint64_t k1 = bit(1), k50 = bit(50);
    /* Conditional lookup: a fresh driver has decoded nothing. */
    dtb_egdb_driver *fresh = dtb_egdb_open("", 0, pure, NULL);
    dtb_egdb_position kk = {k50, k1, k1 | k50};
    report("cl_fresh", dtb_egdb_lookup(fresh, &kk, DTB_EGDB_WHITE, 1), messages);
    report("cl_load", dtb_egdb_lookup(fresh, &kk, DTB_EGDB_WHITE, 0), messages);
    report("cl_cached", dtb_egdb_lookup(fresh, &kk, DTB_EGDB_WHITE, 1), messages);
    report("close_fresh", dtb_egdb_close(fresh), messages);
    m = messages;
    report("kings_draw", lookup(db, k50, k1, k1 | k50, DTB_EGDB_WHITE), m);
    m = messages;
    report("null_handle", lookup(NULL, k50, k1, k1 | k50, DTB_EGDB_WHITE), m);
    m = messages;
    report("made_up_handle", lookup((dtb_egdb_driver *)(uintptr_t)0x1234, k50, k1, k1 | k50, DTB_EGDB_WHITE), m);
    m = messages;
    report("null_position", dtb_egdb_lookup(db, NULL, DTB_EGDB_WHITE, 0), m);
    m = messages;
    report("overlap", lookup(db, k1 | k50, k1, k1 | k50, DTB_EGDB_WHITE), m);
    m = messages;
    report("king_of_no_colour", lookup(db, k50, k1, k1 | k50 | bit(25), DTB_EGDB_WHITE), m);
    m = messages;
    report("white_man_crowning_row", lookup(db, k50, bit(3), k50, DTB_EGDB_BLACK), m);
    m = messages;
    report("black_man_crowning_row", lookup(db, bit(48), k1, k1, DTB_EGDB_WHITE), m);
    m = messages;
    report("ghost_bit", lookup(db, k50 | ((uint64_t)1 << 10), k1, k1 | k50, DTB_EGDB_WHITE), m);
    m = messages;
    report("high_bit", lookup(db, k50, k1 | ((uint64_t)1 << 60), k1 | k50, DTB_EGDB_WHITE), m);
    m = messages;
    report("bad_color", lookup(db, k50, k1, k1 | k50, 2), m);
    m = messages;
    uint64_t seven_white = bit(31) | bit(32) | bit(33) | bit(34);
    uint64_t seven_black = bit(1) | bit(2) | bit(3);
    report("seven_pieces", lookup(db, seven_black, seven_white, seven_black, DTB_EGDB_WHITE), m);
    m = messages;
    uint64_t five_white = bit(31) | bit(32) | bit(33);
    uint64_t five_black = bit(1) | bit(2);
    report("five_pieces_over_maxpieces", lookup(db, five_black, five_white, five_black, DTB_EGDB_WHITE), m);
    m = messages;
    report("no_black_pieces", lookup(db, 0, k1, k1, DTB_EGDB_WHITE), m);
    report("no_black_pieces_black_to_move", lookup(db, 0, k1, k1, DTB_EGDB_BLACK), m);
    report("empty_board", lookup(db, 0, 0, 0, DTB_EGDB_WHITE), m);

    dtb_egdb_stats *stats = dtb_egdb_get_stats(db);
    printf("stats %u %u %u\n", stats->db_requests, stats->db_returns, stats->db_not_present_requests);
    dtb_egdb_reset_stats(db);
    stats = dtb_egdb_get_stats(db);
    printf("stats_reset %u\n", stats->db_requests);

    int abort_flag = 0;
    m = messages;
    report("verify", dtb_egdb_verify(db, count_msg, &abort_flag, NULL), m);
    abort_flag = 1;
    m = messages;
    report("verify_aborted", dtb_egdb_verify(db, count_msg, &abort_flag, NULL) != 0, m);

    report("close", dtb_egdb_close(db), messages);
    m = messages;
    report("lookup_closed", lookup(db, k50, k1, k1 | k50, DTB_EGDB_WHITE), m);
    report("close_again", dtb_egdb_close(db) != 0, messages);
    report("close_null", dtb_egdb_close(NULL) != 0, messages);
    report("stats_closed", (long)(dtb_egdb_get_stats(db) == NULL), messages);
    report("get_pieces_closed", dtb_egdb_get_pieces(db, NULL, NULL, NULL, NULL) != 0, messages);
    report("verify_closed", dtb_egdb_verify(db, NULL, NULL, NULL) != 0, messages);
    dtb_egdb_reset_stats(db);
    printf("ok\n");
    return 0;
}
