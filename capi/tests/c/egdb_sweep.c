/*
 * egdb_sweep: looks up placements of materials through the C form of the
 * egdb interface (dtb_egdb.h), both colours to move.
 *
 *   egdb_sweep DIR OPTIONS STRIDE OUT MATERIAL...
 *
 * For every STRIDE-th placement of each MATERIAL (egdb_positions.h's
 * order) writes two bytes to OUT: the lookup with White to move, then
 * with Black to move (signed values). Prints "MATERIAL N" (N placements
 * walked) per material, then "requests R returns S", then "ok".
 */
#include <stdio.h>
#include <stdlib.h>

#include "dtb_egdb.h"
#include "egdb_positions.h"

typedef struct {
    dtb_egdb_driver *db;
    FILE *out;
    unsigned long long stride, walked;
    int failed;
} sweep;

static void visit(void *ctx, uint64_t white, uint64_t black, uint64_t king) {
    sweep *s = (sweep *)ctx;
    if (s->walked++ % s->stride != 0)
        return;
    dtb_egdb_position p;
    p.black = black;
    p.white = white;
    p.king = king;
    signed char values[2];
    values[0] = (signed char)dtb_egdb_lookup(s->db, &p, DTB_EGDB_WHITE, 0);
    values[1] = (signed char)dtb_egdb_lookup(s->db, &p, DTB_EGDB_BLACK, 0);
    if (fwrite(values, 1, 2, s->out) != 2)
        s->failed = 1;
}

static void print_msg(const char *msg) { fprintf(stderr, "driver: %s", msg); }

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s DIR OPTIONS STRIDE OUT MATERIAL...\n", argv[0]);
        return 2;
    }
    sweep s = {0};
    s.stride = strtoull(argv[3], NULL, 10);
    s.db = dtb_egdb_open(argv[2], 64, argv[1], print_msg);
    s.out = fopen(argv[4], "wb");
    if (!s.db || !s.out || s.stride == 0) {
        fprintf(stderr, "cannot open the driver or %s\n", argv[4]);
        return 1;
    }
    for (int i = 5; i < argc; ++i) {
        sweep_material m;
        if (sweep_parse(argv[i], &m) != 0) {
            fprintf(stderr, "bad material %s\n", argv[i]);
            return 2;
        }
        s.walked = 0;
        sweep_material_positions(&m, visit, &s);
        printf("%s %llu\n", argv[i], s.walked);
    }
    dtb_egdb_stats *stats = dtb_egdb_get_stats(s.db);
    printf("requests %u returns %u\n", stats->db_requests, stats->db_returns);
    if (fclose(s.out) != 0 || s.failed || dtb_egdb_close(s.db) != 0) {
        fprintf(stderr, "write or close failed\n");
        return 1;
    }
    printf("ok\n");
    return 0;
}
