/*
 * Every legal move's value through dtb_move_values, in both forms, for the
 * positions read from stdin, one a line:
 *   WHITE BLACK KINGS SIDE PLIES_LEFT KINGS_ONLY_PLIES FEN
 * (masks in decimal). Prints two lines a position, "mask" and "fen", each
 * the status and then every move as text,wdl,dtc,counted_threshold,
 * lone_king_plies,plies_left_after,kings_only_plies_after separated by
 * spaces; after the first position with two moves or more, a line
 * starting "short" that checks a count-only call and a short array on it.
 *
 *   move_values DIR RULES < positions
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtb.h"

static void print_moves(const char *form, int status, const dtb_move_value *moves, size_t count) {
    printf("%s %d", form, status);
    if (status == DTB_OK) {
        for (size_t i = 0; i < count; i++) {
            const dtb_move_value *m = &moves[i];
            printf(" %s,%d,%d,%d,%d,%d,%d", m->text, m->wdl, m->dtc, m->counted_threshold,
                   m->lone_king_plies, m->plies_left_after, m->kings_only_plies_after);
        }
    }
    printf("\n");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s DIR RULES < positions\n", argv[0]);
        return 2;
    }
    if (dtb_abi_version() != DTB_ABI_VERSION) {
        fprintf(stderr, "library ABI %d, header %d\n", dtb_abi_version(), DTB_ABI_VERSION);
        return 1;
    }
    dtb_tablebase *tb = dtb_open(argv[1], atoi(argv[2]), 0);
    if (!tb) {
        fprintf(stderr, "%s\n", dtb_last_error());
        return 1;
    }
    static dtb_move_value moves[DTB_MAX_MOVES];
    char line[512], fen[256];
    int checked_short = 0;
    while (fgets(line, sizeof line, stdin)) {
        uint64_t white, black, kings;
        int side;
        dtb_counts counts;
        if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %d %d %d %255s", &white, &black,
                   &kings, &side, &counts.plies_left, &counts.kings_only_plies, fen) != 7) {
            fprintf(stderr, "bad line: %s", line);
            return 2;
        }
        size_t count = 0;
        int status = dtb_move_values(tb, white, black, kings, side, counts, moves, DTB_MAX_MOVES,
                                     &count);
        print_moves("mask", status, moves, count);
        status = dtb_move_values_fen(tb, fen, counts, moves, DTB_MAX_MOVES, &count);
        print_moves("fen", status, moves, count);
        if (!checked_short && status == DTB_OK && count >= 2) {
            size_t needed = 0, short_count = 0;
            int only_count = dtb_move_values_fen(tb, fen, counts, NULL, 0, &needed);
            dtb_move_value one[1];
            memset(one, 0, sizeof one);
            int too_short = dtb_move_values_fen(tb, fen, counts, one, 1, &short_count);
            printf("short %s %d %zu %d %zu %zu %d\n", fen, only_count, needed, too_short,
                   short_count, count, one[0].text[0] == 0);
            checked_short = 1;
        }
    }
    dtb_close(tb);
    return 0;
}
