/*
 * probe_example: probes positions through the draughts-tb C interface.
 *
 *   probe_example DIR FEN [FEN...]
 *
 * For each FEN prints one line:
 *   FEN <tab> wdl=W <tab> plies=P <tab> best=MOVE <tab> wdl4=W4 <tab> dtc=D <tab> kings=K
 * where W is the value with a freshly entered counter, P the stored
 * distance (-1: none), MOVE a best move ("-" when there is none), W4 the
 * value with 4 plies left on the counter and D the distance to conversion
 * (-1: a draw; "none" without .dtc files). K is, for a position
 * with a DTC of 2 to 50, "A/B/MOVE": the values with 50 - D and 51 - D plies played
 * with only kings moving (the 25-move rule), and the best move with
 * 50 - D; else "-". Errors print "error=CODE message".
 * It also checks the mask interface, a few bad calls and calls on a closed
 * handle, then prints "ok".
 */
#include <stdio.h>
#include <string.h>

#include "dtb.h"

static int fail(const char *what, int code) {
    printf("FAILED %s: %d %s\n", what, code, dtb_last_error());
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s DIR FEN [FEN...]\n", argv[0]);
        return 2;
    }
    /* Optional: a table file cut short by another process during a probe
     * is then an error instead of SIGBUS. Leave it out if your program or
     * its runtime handles SIGBUS itself. */
    dtb_install_sigbus_guard();
    dtb_tablebase *tb = dtb_open(argv[1], DTB_RULES_FMJD, 0);
    if (!tb) {
        fprintf(stderr, "open: %s\n", dtb_last_error());
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        int wdl = 0, plies = -1, wdl4 = 0, best_wdl = 0, best_plies = -1;
        char move[DTB_MOVE_BUFFER];
        int rc = dtb_probe_wdl_fen(tb, argv[i], DTB_PLIES_FRESH, &wdl);
        if (rc != DTB_OK) {
            printf("%s\terror=%d %s\n", argv[i], rc, dtb_last_error());
            continue;
        }
        rc = dtb_probe_distance_fen(tb, argv[i], NULL, &plies);
        if (rc != DTB_OK) return fail("distance", rc);
        rc = dtb_probe_wdl_fen(tb, argv[i], 4, &wdl4);
        if (rc == DTB_ERR_BAD_ARGUMENT) wdl4 = 9; /* 4 plies not meaningful here */
        else if (rc != DTB_OK) return fail("wdl4", rc);
        rc = dtb_best_move_fen(tb, argv[i], DTB_PLIES_FRESH, move, sizeof move, &best_wdl, &best_plies);
        if (rc == DTB_ERR_INVALID_POSITION) strcpy(move, "-");
        else if (rc != DTB_OK) return fail("best move", rc);
        int dtc = -1;
        rc = dtb_probe_dtc_fen(tb, argv[i], &dtc);
        char dtc_text[16];
        if (rc == DTB_ERR_MISSING_TABLE) strcpy(dtc_text, "none");
        else if (rc != DTB_OK) return fail("dtc", rc);
        else snprintf(dtc_text, sizeof dtc_text, "%d", dtc);
        char kings_text[96] = "-";
        if (rc == DTB_OK && dtc >= 2 && dtc <= 50) {
            int held = 0, dropped = 0;
            char kings_move[DTB_MOVE_BUFFER];
            rc = dtb_probe_wdl_kings_only_fen(tb, argv[i], DTB_PLIES_FRESH, 50 - dtc, &held);
            if (rc != DTB_OK) return fail("kings only", rc);
            rc = dtb_probe_wdl_kings_only_fen(tb, argv[i], DTB_PLIES_FRESH, 51 - dtc, &dropped);
            if (rc != DTB_OK) return fail("kings only + 1", rc);
            rc = dtb_best_move_kings_only_fen(tb, argv[i], DTB_PLIES_FRESH, 50 - dtc, kings_move,
                                              sizeof kings_move, NULL, NULL);
            if (rc == DTB_ERR_INVALID_POSITION) strcpy(kings_move, "-");
            else if (rc != DTB_OK) return fail("kings only best move", rc);
            snprintf(kings_text, sizeof kings_text, "%d/%d/%s", held, dropped, kings_move);
        }
        printf("%s\twdl=%d\tplies=%d\tbest=%s\twdl4=%d\tdtc=%s\tkings=%s\n", argv[i], wdl, plies,
               move, wdl4, dtc_text, kings_text);
    }

    /* The mask interface: White king on 46 and 47, man on 28; Black king on 5. */
    uint64_t white = (1ull << 45) | (1ull << 46) | (1ull << 27);
    uint64_t black = 1ull << 4;
    uint64_t kings = (1ull << 45) | (1ull << 46) | (1ull << 4);
    int a = 0, b = 0;
    int rc = dtb_probe_wdl(tb, white, black, kings, DTB_WHITE, DTB_PLIES_FRESH, &a);
    if (rc != DTB_OK && rc != DTB_ERR_MISSING_TABLE) return fail("masks", rc);
    if (rc == DTB_OK) {
        rc = dtb_probe_wdl_fen(tb, "W:WK46,K47,28:BK5", DTB_PLIES_FRESH, &b);
        if (rc != DTB_OK || a != b) return fail("masks vs fen", rc);
        rc = dtb_probe_wdl_if_cached(tb, white, black, kings, DTB_WHITE, DTB_PLIES_FRESH, &b);
        if (rc != DTB_OK || a != b) return fail("cached", rc);
    }

    /* Bad calls give codes, never a crash. */
    if (dtb_probe_wdl(NULL, 0, 0, 0, 0, -1, &a) != DTB_ERR_BAD_ARGUMENT) return fail("null handle", 0);
    if (dtb_probe_wdl(tb, 1, 1, 0, DTB_WHITE, -1, &a) != DTB_ERR_INVALID_POSITION) return fail("overlap", 0);
    if (dtb_probe_wdl(tb, 1ull << 55, 1, 0, DTB_WHITE, -1, &a) != DTB_ERR_INVALID_POSITION) return fail("off board", 0);
    if (dtb_probe_wdl(tb, 1ull << 30, 1, 0, 7, -1, &a) != DTB_ERR_BAD_ARGUMENT) return fail("side", 0);
    if (dtb_probe_wdl_fen(tb, "W:W0:B1", -1, &a) != DTB_ERR_INVALID_POSITION) return fail("bad fen", 0);
    if (dtb_probe_wdl_fen(tb, NULL, -1, &a) != DTB_ERR_BAD_ARGUMENT) return fail("null fen", 0);
    if (dtb_probe_wdl_fen(tb, "W:WK1:BK50", -1, NULL) != DTB_ERR_BAD_ARGUMENT) return fail("null out", 0);
    if (dtb_best_move_fen(tb, "W:WK1:BK50", -1, NULL, 0, NULL, NULL) != DTB_ERR_BAD_ARGUMENT) return fail("null buf", 0);
    if (dtb_probe_wdl_fen(tb, "W:WK1,K2,K3:BK4,K5,K6", -1, &a) != DTB_ERR_MISSING_TABLE) return fail("missing", 0);
    if (dtb_probe_wdl_kings_only_fen(tb, "W:WK1:BK50", -1, 50, &a) != DTB_ERR_BAD_ARGUMENT) return fail("50 king-only plies", 0);
    if (dtb_probe_wdl_kings_only(tb, 1ull << 30, 1, 0, DTB_WHITE, -1, -1, &a) != DTB_ERR_BAD_ARGUMENT) return fail("negative king-only plies", 0);
    if (strlen(dtb_last_error()) == 0) return fail("message", 0);
    if (dtb_open(NULL, 0, 0) != NULL) return fail("null dir", 0);
    if (dtb_open(".", 9, 0) != NULL) return fail("rules", 0);
    printf("max_pieces=%d version=%s\n", dtb_max_pieces(tb), dtb_version());

    /* The same directory under other rules: no tables there, so opening
       fails at once and dtb_last_error() says which folder is missing. */
    if (dtb_open(argv[1], DTB_RULES_PURE, 0) != NULL) return fail("pure rules", 0);
    if (strstr(dtb_last_error(), "no pure tables") == NULL) return fail("pure message", 0);

    /* A closed handle is an error code, and so is closing it again. */
    if (dtb_close(tb) != DTB_OK) return fail("close", 0);
    if (dtb_probe_wdl_fen(tb, "W:WK1:BK50", -1, &a) != DTB_ERR_BAD_ARGUMENT) return fail("closed handle", 0);
    if (strcmp(dtb_last_error(), "closed or unknown tablebase handle") != 0) return fail("closed message", 0);
    if (dtb_max_pieces(tb) != -1) return fail("closed max_pieces", 0);
    if (dtb_close(tb) != DTB_ERR_BAD_ARGUMENT) return fail("double close", 0);
    if (dtb_close(NULL) != DTB_OK) return fail("close NULL", 0);
    printf("ok\n");
    return 0;
}
