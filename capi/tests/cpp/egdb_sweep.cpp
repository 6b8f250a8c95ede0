// egdb_sweep (C++): the sweep of egdb_sweep.c through the C++ interface,
// <egdb_intl.h> with Kingsrow's names, on several threads sharing one
// driver handle.
//
//   egdb_sweep_cpp DIR OPTIONS STRIDE OUT THREADS MATERIAL...
//
// Writes what egdb_sweep.c writes (two signed bytes per STRIDE-th
// placement, White then Black to move), the materials split between
// THREADS threads that all look up through the same handle; prints
// "MATERIAL N" per material and "ok".
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "egdb_intl.h"
#include "../c/egdb_positions.h"

using namespace egdb_interface;

namespace {

struct Sweep {
    Sweep(EGDB_DRIVER *db, unsigned long long stride) : db(db), stride(stride) {}
    EGDB_DRIVER *db;
    unsigned long long stride;
    unsigned long long walked = 0;
    std::vector<signed char> values;
};

void visit(void *ctx, uint64_t white, uint64_t black, uint64_t king) {
    Sweep *s = static_cast<Sweep *>(ctx);
    if (s->walked++ % s->stride != 0)
        return;
    EGDB_POSITION p;
    p.black = black;
    p.white = white;
    p.king = king;
    s->values.push_back(static_cast<signed char>(egdb_lookup(s->db, &p, EGDB_WHITE, 0)));
    s->values.push_back(static_cast<signed char>(egdb_lookup(s->db, &p, EGDB_BLACK, 0)));
}

void print_msg(char const *msg) { std::fprintf(stderr, "driver: %s", msg); }

} // namespace

int main(int argc, char **argv) {
    if (argc < 7) {
        std::fprintf(stderr, "usage: %s DIR OPTIONS STRIDE OUT THREADS MATERIAL...\n", argv[0]);
        return 2;
    }
    EGDB_DRIVER *db = egdb_open(argv[2], 64, argv[1], print_msg);
    if (!db)
        return 1;
    unsigned long long stride = std::strtoull(argv[3], nullptr, 10);
    int threads = std::atoi(argv[5]);
    int materials = argc - 6;
    std::vector<Sweep> sweeps(materials, Sweep(db, stride));
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            for (int i = t; i < materials; i += threads) {
                sweep_material m;
                if (sweep_parse(argv[6 + i], &m) == 0)
                    sweep_material_positions(&m, visit, &sweeps[i]);
            }
        });
    }
    for (auto &w : workers)
        w.join();
    std::FILE *out = std::fopen(argv[4], "wb");
    if (!out)
        return 1;
    for (int i = 0; i < materials; ++i) {
        std::fwrite(sweeps[i].values.data(), 1, sweeps[i].values.size(), out);
        std::printf("%s %llu\n", argv[6 + i], sweeps[i].walked);
    }
    EGDB_STATS *stats = egdb_get_stats(db);
    std::printf("requests %u returns %u\n", stats->db_requests, stats->db_returns);
    if (std::fclose(out) != 0 || egdb_close(db) != 0)
        return 1;
    std::printf("ok\n");
    return 0;
}
