/* bench/core/cct_noswap.c - core/cct.c built without sibling reordering,
 * its functions renamed noswap_cct__*, as the baseline of bench_cct. */
#define CCT_SWAP_POS 0xffffffffu
#define cct__init noswap_cct__init
#define cct__destroy noswap_cct__destroy
#define cct__reset noswap_cct__reset
#define cct__child noswap_cct__child
#define cct__find noswap_cct__find
#define cct__insert_path noswap_cct__insert_path
#define cct__merge noswap_cct__merge
#define cct__depth noswap_cct__depth
#include "core/cct.c"
