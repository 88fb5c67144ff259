/* chain: a call chain of 300 distinct functions (no recursion) with the work
 * at the bottom: the report --json must nest the whole tree (two JSON levels
 * per frame).  Generated once (300 one-line functions); usage: chain [M steps] */
#include "work.h"

static unsigned long steps;
void c299(void);
__attribute__((noinline)) void c299(void) { spin(steps); }
__attribute__((noinline)) void c298(void);
__attribute__((noinline)) void c298(void) { c299(); __asm__ volatile(""); }
__attribute__((noinline)) void c297(void);
__attribute__((noinline)) void c297(void) { c298(); __asm__ volatile(""); }
__attribute__((noinline)) void c296(void);
__attribute__((noinline)) void c296(void) { c297(); __asm__ volatile(""); }
__attribute__((noinline)) void c295(void);
__attribute__((noinline)) void c295(void) { c296(); __asm__ volatile(""); }
__attribute__((noinline)) void c294(void);
__attribute__((noinline)) void c294(void) { c295(); __asm__ volatile(""); }
__attribute__((noinline)) void c293(void);
__attribute__((noinline)) void c293(void) { c294(); __asm__ volatile(""); }
__attribute__((noinline)) void c292(void);
__attribute__((noinline)) void c292(void) { c293(); __asm__ volatile(""); }
__attribute__((noinline)) void c291(void);
__attribute__((noinline)) void c291(void) { c292(); __asm__ volatile(""); }
__attribute__((noinline)) void c290(void);
__attribute__((noinline)) void c290(void) { c291(); __asm__ volatile(""); }
__attribute__((noinline)) void c289(void);
__attribute__((noinline)) void c289(void) { c290(); __asm__ volatile(""); }
__attribute__((noinline)) void c288(void);
__attribute__((noinline)) void c288(void) { c289(); __asm__ volatile(""); }
__attribute__((noinline)) void c287(void);
__attribute__((noinline)) void c287(void) { c288(); __asm__ volatile(""); }
__attribute__((noinline)) void c286(void);
__attribute__((noinline)) void c286(void) { c287(); __asm__ volatile(""); }
__attribute__((noinline)) void c285(void);
__attribute__((noinline)) void c285(void) { c286(); __asm__ volatile(""); }
__attribute__((noinline)) void c284(void);
__attribute__((noinline)) void c284(void) { c285(); __asm__ volatile(""); }
__attribute__((noinline)) void c283(void);
__attribute__((noinline)) void c283(void) { c284(); __asm__ volatile(""); }
__attribute__((noinline)) void c282(void);
__attribute__((noinline)) void c282(void) { c283(); __asm__ volatile(""); }
__attribute__((noinline)) void c281(void);
__attribute__((noinline)) void c281(void) { c282(); __asm__ volatile(""); }
__attribute__((noinline)) void c280(void);
__attribute__((noinline)) void c280(void) { c281(); __asm__ volatile(""); }
__attribute__((noinline)) void c279(void);
__attribute__((noinline)) void c279(void) { c280(); __asm__ volatile(""); }
__attribute__((noinline)) void c278(void);
__attribute__((noinline)) void c278(void) { c279(); __asm__ volatile(""); }
__attribute__((noinline)) void c277(void);
__attribute__((noinline)) void c277(void) { c278(); __asm__ volatile(""); }
__attribute__((noinline)) void c276(void);
__attribute__((noinline)) void c276(void) { c277(); __asm__ volatile(""); }
__attribute__((noinline)) void c275(void);
__attribute__((noinline)) void c275(void) { c276(); __asm__ volatile(""); }
__attribute__((noinline)) void c274(void);
__attribute__((noinline)) void c274(void) { c275(); __asm__ volatile(""); }
__attribute__((noinline)) void c273(void);
__attribute__((noinline)) void c273(void) { c274(); __asm__ volatile(""); }
__attribute__((noinline)) void c272(void);
__attribute__((noinline)) void c272(void) { c273(); __asm__ volatile(""); }
__attribute__((noinline)) void c271(void);
__attribute__((noinline)) void c271(void) { c272(); __asm__ volatile(""); }
__attribute__((noinline)) void c270(void);
__attribute__((noinline)) void c270(void) { c271(); __asm__ volatile(""); }
__attribute__((noinline)) void c269(void);
__attribute__((noinline)) void c269(void) { c270(); __asm__ volatile(""); }
__attribute__((noinline)) void c268(void);
__attribute__((noinline)) void c268(void) { c269(); __asm__ volatile(""); }
__attribute__((noinline)) void c267(void);
__attribute__((noinline)) void c267(void) { c268(); __asm__ volatile(""); }
__attribute__((noinline)) void c266(void);
__attribute__((noinline)) void c266(void) { c267(); __asm__ volatile(""); }
__attribute__((noinline)) void c265(void);
__attribute__((noinline)) void c265(void) { c266(); __asm__ volatile(""); }
__attribute__((noinline)) void c264(void);
__attribute__((noinline)) void c264(void) { c265(); __asm__ volatile(""); }
__attribute__((noinline)) void c263(void);
__attribute__((noinline)) void c263(void) { c264(); __asm__ volatile(""); }
__attribute__((noinline)) void c262(void);
__attribute__((noinline)) void c262(void) { c263(); __asm__ volatile(""); }
__attribute__((noinline)) void c261(void);
__attribute__((noinline)) void c261(void) { c262(); __asm__ volatile(""); }
__attribute__((noinline)) void c260(void);
__attribute__((noinline)) void c260(void) { c261(); __asm__ volatile(""); }
__attribute__((noinline)) void c259(void);
__attribute__((noinline)) void c259(void) { c260(); __asm__ volatile(""); }
__attribute__((noinline)) void c258(void);
__attribute__((noinline)) void c258(void) { c259(); __asm__ volatile(""); }
__attribute__((noinline)) void c257(void);
__attribute__((noinline)) void c257(void) { c258(); __asm__ volatile(""); }
__attribute__((noinline)) void c256(void);
__attribute__((noinline)) void c256(void) { c257(); __asm__ volatile(""); }
__attribute__((noinline)) void c255(void);
__attribute__((noinline)) void c255(void) { c256(); __asm__ volatile(""); }
__attribute__((noinline)) void c254(void);
__attribute__((noinline)) void c254(void) { c255(); __asm__ volatile(""); }
__attribute__((noinline)) void c253(void);
__attribute__((noinline)) void c253(void) { c254(); __asm__ volatile(""); }
__attribute__((noinline)) void c252(void);
__attribute__((noinline)) void c252(void) { c253(); __asm__ volatile(""); }
__attribute__((noinline)) void c251(void);
__attribute__((noinline)) void c251(void) { c252(); __asm__ volatile(""); }
__attribute__((noinline)) void c250(void);
__attribute__((noinline)) void c250(void) { c251(); __asm__ volatile(""); }
__attribute__((noinline)) void c249(void);
__attribute__((noinline)) void c249(void) { c250(); __asm__ volatile(""); }
__attribute__((noinline)) void c248(void);
__attribute__((noinline)) void c248(void) { c249(); __asm__ volatile(""); }
__attribute__((noinline)) void c247(void);
__attribute__((noinline)) void c247(void) { c248(); __asm__ volatile(""); }
__attribute__((noinline)) void c246(void);
__attribute__((noinline)) void c246(void) { c247(); __asm__ volatile(""); }
__attribute__((noinline)) void c245(void);
__attribute__((noinline)) void c245(void) { c246(); __asm__ volatile(""); }
__attribute__((noinline)) void c244(void);
__attribute__((noinline)) void c244(void) { c245(); __asm__ volatile(""); }
__attribute__((noinline)) void c243(void);
__attribute__((noinline)) void c243(void) { c244(); __asm__ volatile(""); }
__attribute__((noinline)) void c242(void);
__attribute__((noinline)) void c242(void) { c243(); __asm__ volatile(""); }
__attribute__((noinline)) void c241(void);
__attribute__((noinline)) void c241(void) { c242(); __asm__ volatile(""); }
__attribute__((noinline)) void c240(void);
__attribute__((noinline)) void c240(void) { c241(); __asm__ volatile(""); }
__attribute__((noinline)) void c239(void);
__attribute__((noinline)) void c239(void) { c240(); __asm__ volatile(""); }
__attribute__((noinline)) void c238(void);
__attribute__((noinline)) void c238(void) { c239(); __asm__ volatile(""); }
__attribute__((noinline)) void c237(void);
__attribute__((noinline)) void c237(void) { c238(); __asm__ volatile(""); }
__attribute__((noinline)) void c236(void);
__attribute__((noinline)) void c236(void) { c237(); __asm__ volatile(""); }
__attribute__((noinline)) void c235(void);
__attribute__((noinline)) void c235(void) { c236(); __asm__ volatile(""); }
__attribute__((noinline)) void c234(void);
__attribute__((noinline)) void c234(void) { c235(); __asm__ volatile(""); }
__attribute__((noinline)) void c233(void);
__attribute__((noinline)) void c233(void) { c234(); __asm__ volatile(""); }
__attribute__((noinline)) void c232(void);
__attribute__((noinline)) void c232(void) { c233(); __asm__ volatile(""); }
__attribute__((noinline)) void c231(void);
__attribute__((noinline)) void c231(void) { c232(); __asm__ volatile(""); }
__attribute__((noinline)) void c230(void);
__attribute__((noinline)) void c230(void) { c231(); __asm__ volatile(""); }
__attribute__((noinline)) void c229(void);
__attribute__((noinline)) void c229(void) { c230(); __asm__ volatile(""); }
__attribute__((noinline)) void c228(void);
__attribute__((noinline)) void c228(void) { c229(); __asm__ volatile(""); }
__attribute__((noinline)) void c227(void);
__attribute__((noinline)) void c227(void) { c228(); __asm__ volatile(""); }
__attribute__((noinline)) void c226(void);
__attribute__((noinline)) void c226(void) { c227(); __asm__ volatile(""); }
__attribute__((noinline)) void c225(void);
__attribute__((noinline)) void c225(void) { c226(); __asm__ volatile(""); }
__attribute__((noinline)) void c224(void);
__attribute__((noinline)) void c224(void) { c225(); __asm__ volatile(""); }
__attribute__((noinline)) void c223(void);
__attribute__((noinline)) void c223(void) { c224(); __asm__ volatile(""); }
__attribute__((noinline)) void c222(void);
__attribute__((noinline)) void c222(void) { c223(); __asm__ volatile(""); }
__attribute__((noinline)) void c221(void);
__attribute__((noinline)) void c221(void) { c222(); __asm__ volatile(""); }
__attribute__((noinline)) void c220(void);
__attribute__((noinline)) void c220(void) { c221(); __asm__ volatile(""); }
__attribute__((noinline)) void c219(void);
__attribute__((noinline)) void c219(void) { c220(); __asm__ volatile(""); }
__attribute__((noinline)) void c218(void);
__attribute__((noinline)) void c218(void) { c219(); __asm__ volatile(""); }
__attribute__((noinline)) void c217(void);
__attribute__((noinline)) void c217(void) { c218(); __asm__ volatile(""); }
__attribute__((noinline)) void c216(void);
__attribute__((noinline)) void c216(void) { c217(); __asm__ volatile(""); }
__attribute__((noinline)) void c215(void);
__attribute__((noinline)) void c215(void) { c216(); __asm__ volatile(""); }
__attribute__((noinline)) void c214(void);
__attribute__((noinline)) void c214(void) { c215(); __asm__ volatile(""); }
__attribute__((noinline)) void c213(void);
__attribute__((noinline)) void c213(void) { c214(); __asm__ volatile(""); }
__attribute__((noinline)) void c212(void);
__attribute__((noinline)) void c212(void) { c213(); __asm__ volatile(""); }
__attribute__((noinline)) void c211(void);
__attribute__((noinline)) void c211(void) { c212(); __asm__ volatile(""); }
__attribute__((noinline)) void c210(void);
__attribute__((noinline)) void c210(void) { c211(); __asm__ volatile(""); }
__attribute__((noinline)) void c209(void);
__attribute__((noinline)) void c209(void) { c210(); __asm__ volatile(""); }
__attribute__((noinline)) void c208(void);
__attribute__((noinline)) void c208(void) { c209(); __asm__ volatile(""); }
__attribute__((noinline)) void c207(void);
__attribute__((noinline)) void c207(void) { c208(); __asm__ volatile(""); }
__attribute__((noinline)) void c206(void);
__attribute__((noinline)) void c206(void) { c207(); __asm__ volatile(""); }
__attribute__((noinline)) void c205(void);
__attribute__((noinline)) void c205(void) { c206(); __asm__ volatile(""); }
__attribute__((noinline)) void c204(void);
__attribute__((noinline)) void c204(void) { c205(); __asm__ volatile(""); }
__attribute__((noinline)) void c203(void);
__attribute__((noinline)) void c203(void) { c204(); __asm__ volatile(""); }
__attribute__((noinline)) void c202(void);
__attribute__((noinline)) void c202(void) { c203(); __asm__ volatile(""); }
__attribute__((noinline)) void c201(void);
__attribute__((noinline)) void c201(void) { c202(); __asm__ volatile(""); }
__attribute__((noinline)) void c200(void);
__attribute__((noinline)) void c200(void) { c201(); __asm__ volatile(""); }
__attribute__((noinline)) void c199(void);
__attribute__((noinline)) void c199(void) { c200(); __asm__ volatile(""); }
__attribute__((noinline)) void c198(void);
__attribute__((noinline)) void c198(void) { c199(); __asm__ volatile(""); }
__attribute__((noinline)) void c197(void);
__attribute__((noinline)) void c197(void) { c198(); __asm__ volatile(""); }
__attribute__((noinline)) void c196(void);
__attribute__((noinline)) void c196(void) { c197(); __asm__ volatile(""); }
__attribute__((noinline)) void c195(void);
__attribute__((noinline)) void c195(void) { c196(); __asm__ volatile(""); }
__attribute__((noinline)) void c194(void);
__attribute__((noinline)) void c194(void) { c195(); __asm__ volatile(""); }
__attribute__((noinline)) void c193(void);
__attribute__((noinline)) void c193(void) { c194(); __asm__ volatile(""); }
__attribute__((noinline)) void c192(void);
__attribute__((noinline)) void c192(void) { c193(); __asm__ volatile(""); }
__attribute__((noinline)) void c191(void);
__attribute__((noinline)) void c191(void) { c192(); __asm__ volatile(""); }
__attribute__((noinline)) void c190(void);
__attribute__((noinline)) void c190(void) { c191(); __asm__ volatile(""); }
__attribute__((noinline)) void c189(void);
__attribute__((noinline)) void c189(void) { c190(); __asm__ volatile(""); }
__attribute__((noinline)) void c188(void);
__attribute__((noinline)) void c188(void) { c189(); __asm__ volatile(""); }
__attribute__((noinline)) void c187(void);
__attribute__((noinline)) void c187(void) { c188(); __asm__ volatile(""); }
__attribute__((noinline)) void c186(void);
__attribute__((noinline)) void c186(void) { c187(); __asm__ volatile(""); }
__attribute__((noinline)) void c185(void);
__attribute__((noinline)) void c185(void) { c186(); __asm__ volatile(""); }
__attribute__((noinline)) void c184(void);
__attribute__((noinline)) void c184(void) { c185(); __asm__ volatile(""); }
__attribute__((noinline)) void c183(void);
__attribute__((noinline)) void c183(void) { c184(); __asm__ volatile(""); }
__attribute__((noinline)) void c182(void);
__attribute__((noinline)) void c182(void) { c183(); __asm__ volatile(""); }
__attribute__((noinline)) void c181(void);
__attribute__((noinline)) void c181(void) { c182(); __asm__ volatile(""); }
__attribute__((noinline)) void c180(void);
__attribute__((noinline)) void c180(void) { c181(); __asm__ volatile(""); }
__attribute__((noinline)) void c179(void);
__attribute__((noinline)) void c179(void) { c180(); __asm__ volatile(""); }
__attribute__((noinline)) void c178(void);
__attribute__((noinline)) void c178(void) { c179(); __asm__ volatile(""); }
__attribute__((noinline)) void c177(void);
__attribute__((noinline)) void c177(void) { c178(); __asm__ volatile(""); }
__attribute__((noinline)) void c176(void);
__attribute__((noinline)) void c176(void) { c177(); __asm__ volatile(""); }
__attribute__((noinline)) void c175(void);
__attribute__((noinline)) void c175(void) { c176(); __asm__ volatile(""); }
__attribute__((noinline)) void c174(void);
__attribute__((noinline)) void c174(void) { c175(); __asm__ volatile(""); }
__attribute__((noinline)) void c173(void);
__attribute__((noinline)) void c173(void) { c174(); __asm__ volatile(""); }
__attribute__((noinline)) void c172(void);
__attribute__((noinline)) void c172(void) { c173(); __asm__ volatile(""); }
__attribute__((noinline)) void c171(void);
__attribute__((noinline)) void c171(void) { c172(); __asm__ volatile(""); }
__attribute__((noinline)) void c170(void);
__attribute__((noinline)) void c170(void) { c171(); __asm__ volatile(""); }
__attribute__((noinline)) void c169(void);
__attribute__((noinline)) void c169(void) { c170(); __asm__ volatile(""); }
__attribute__((noinline)) void c168(void);
__attribute__((noinline)) void c168(void) { c169(); __asm__ volatile(""); }
__attribute__((noinline)) void c167(void);
__attribute__((noinline)) void c167(void) { c168(); __asm__ volatile(""); }
__attribute__((noinline)) void c166(void);
__attribute__((noinline)) void c166(void) { c167(); __asm__ volatile(""); }
__attribute__((noinline)) void c165(void);
__attribute__((noinline)) void c165(void) { c166(); __asm__ volatile(""); }
__attribute__((noinline)) void c164(void);
__attribute__((noinline)) void c164(void) { c165(); __asm__ volatile(""); }
__attribute__((noinline)) void c163(void);
__attribute__((noinline)) void c163(void) { c164(); __asm__ volatile(""); }
__attribute__((noinline)) void c162(void);
__attribute__((noinline)) void c162(void) { c163(); __asm__ volatile(""); }
__attribute__((noinline)) void c161(void);
__attribute__((noinline)) void c161(void) { c162(); __asm__ volatile(""); }
__attribute__((noinline)) void c160(void);
__attribute__((noinline)) void c160(void) { c161(); __asm__ volatile(""); }
__attribute__((noinline)) void c159(void);
__attribute__((noinline)) void c159(void) { c160(); __asm__ volatile(""); }
__attribute__((noinline)) void c158(void);
__attribute__((noinline)) void c158(void) { c159(); __asm__ volatile(""); }
__attribute__((noinline)) void c157(void);
__attribute__((noinline)) void c157(void) { c158(); __asm__ volatile(""); }
__attribute__((noinline)) void c156(void);
__attribute__((noinline)) void c156(void) { c157(); __asm__ volatile(""); }
__attribute__((noinline)) void c155(void);
__attribute__((noinline)) void c155(void) { c156(); __asm__ volatile(""); }
__attribute__((noinline)) void c154(void);
__attribute__((noinline)) void c154(void) { c155(); __asm__ volatile(""); }
__attribute__((noinline)) void c153(void);
__attribute__((noinline)) void c153(void) { c154(); __asm__ volatile(""); }
__attribute__((noinline)) void c152(void);
__attribute__((noinline)) void c152(void) { c153(); __asm__ volatile(""); }
__attribute__((noinline)) void c151(void);
__attribute__((noinline)) void c151(void) { c152(); __asm__ volatile(""); }
__attribute__((noinline)) void c150(void);
__attribute__((noinline)) void c150(void) { c151(); __asm__ volatile(""); }
__attribute__((noinline)) void c149(void);
__attribute__((noinline)) void c149(void) { c150(); __asm__ volatile(""); }
__attribute__((noinline)) void c148(void);
__attribute__((noinline)) void c148(void) { c149(); __asm__ volatile(""); }
__attribute__((noinline)) void c147(void);
__attribute__((noinline)) void c147(void) { c148(); __asm__ volatile(""); }
__attribute__((noinline)) void c146(void);
__attribute__((noinline)) void c146(void) { c147(); __asm__ volatile(""); }
__attribute__((noinline)) void c145(void);
__attribute__((noinline)) void c145(void) { c146(); __asm__ volatile(""); }
__attribute__((noinline)) void c144(void);
__attribute__((noinline)) void c144(void) { c145(); __asm__ volatile(""); }
__attribute__((noinline)) void c143(void);
__attribute__((noinline)) void c143(void) { c144(); __asm__ volatile(""); }
__attribute__((noinline)) void c142(void);
__attribute__((noinline)) void c142(void) { c143(); __asm__ volatile(""); }
__attribute__((noinline)) void c141(void);
__attribute__((noinline)) void c141(void) { c142(); __asm__ volatile(""); }
__attribute__((noinline)) void c140(void);
__attribute__((noinline)) void c140(void) { c141(); __asm__ volatile(""); }
__attribute__((noinline)) void c139(void);
__attribute__((noinline)) void c139(void) { c140(); __asm__ volatile(""); }
__attribute__((noinline)) void c138(void);
__attribute__((noinline)) void c138(void) { c139(); __asm__ volatile(""); }
__attribute__((noinline)) void c137(void);
__attribute__((noinline)) void c137(void) { c138(); __asm__ volatile(""); }
__attribute__((noinline)) void c136(void);
__attribute__((noinline)) void c136(void) { c137(); __asm__ volatile(""); }
__attribute__((noinline)) void c135(void);
__attribute__((noinline)) void c135(void) { c136(); __asm__ volatile(""); }
__attribute__((noinline)) void c134(void);
__attribute__((noinline)) void c134(void) { c135(); __asm__ volatile(""); }
__attribute__((noinline)) void c133(void);
__attribute__((noinline)) void c133(void) { c134(); __asm__ volatile(""); }
__attribute__((noinline)) void c132(void);
__attribute__((noinline)) void c132(void) { c133(); __asm__ volatile(""); }
__attribute__((noinline)) void c131(void);
__attribute__((noinline)) void c131(void) { c132(); __asm__ volatile(""); }
__attribute__((noinline)) void c130(void);
__attribute__((noinline)) void c130(void) { c131(); __asm__ volatile(""); }
__attribute__((noinline)) void c129(void);
__attribute__((noinline)) void c129(void) { c130(); __asm__ volatile(""); }
__attribute__((noinline)) void c128(void);
__attribute__((noinline)) void c128(void) { c129(); __asm__ volatile(""); }
__attribute__((noinline)) void c127(void);
__attribute__((noinline)) void c127(void) { c128(); __asm__ volatile(""); }
__attribute__((noinline)) void c126(void);
__attribute__((noinline)) void c126(void) { c127(); __asm__ volatile(""); }
__attribute__((noinline)) void c125(void);
__attribute__((noinline)) void c125(void) { c126(); __asm__ volatile(""); }
__attribute__((noinline)) void c124(void);
__attribute__((noinline)) void c124(void) { c125(); __asm__ volatile(""); }
__attribute__((noinline)) void c123(void);
__attribute__((noinline)) void c123(void) { c124(); __asm__ volatile(""); }
__attribute__((noinline)) void c122(void);
__attribute__((noinline)) void c122(void) { c123(); __asm__ volatile(""); }
__attribute__((noinline)) void c121(void);
__attribute__((noinline)) void c121(void) { c122(); __asm__ volatile(""); }
__attribute__((noinline)) void c120(void);
__attribute__((noinline)) void c120(void) { c121(); __asm__ volatile(""); }
__attribute__((noinline)) void c119(void);
__attribute__((noinline)) void c119(void) { c120(); __asm__ volatile(""); }
__attribute__((noinline)) void c118(void);
__attribute__((noinline)) void c118(void) { c119(); __asm__ volatile(""); }
__attribute__((noinline)) void c117(void);
__attribute__((noinline)) void c117(void) { c118(); __asm__ volatile(""); }
__attribute__((noinline)) void c116(void);
__attribute__((noinline)) void c116(void) { c117(); __asm__ volatile(""); }
__attribute__((noinline)) void c115(void);
__attribute__((noinline)) void c115(void) { c116(); __asm__ volatile(""); }
__attribute__((noinline)) void c114(void);
__attribute__((noinline)) void c114(void) { c115(); __asm__ volatile(""); }
__attribute__((noinline)) void c113(void);
__attribute__((noinline)) void c113(void) { c114(); __asm__ volatile(""); }
__attribute__((noinline)) void c112(void);
__attribute__((noinline)) void c112(void) { c113(); __asm__ volatile(""); }
__attribute__((noinline)) void c111(void);
__attribute__((noinline)) void c111(void) { c112(); __asm__ volatile(""); }
__attribute__((noinline)) void c110(void);
__attribute__((noinline)) void c110(void) { c111(); __asm__ volatile(""); }
__attribute__((noinline)) void c109(void);
__attribute__((noinline)) void c109(void) { c110(); __asm__ volatile(""); }
__attribute__((noinline)) void c108(void);
__attribute__((noinline)) void c108(void) { c109(); __asm__ volatile(""); }
__attribute__((noinline)) void c107(void);
__attribute__((noinline)) void c107(void) { c108(); __asm__ volatile(""); }
__attribute__((noinline)) void c106(void);
__attribute__((noinline)) void c106(void) { c107(); __asm__ volatile(""); }
__attribute__((noinline)) void c105(void);
__attribute__((noinline)) void c105(void) { c106(); __asm__ volatile(""); }
__attribute__((noinline)) void c104(void);
__attribute__((noinline)) void c104(void) { c105(); __asm__ volatile(""); }
__attribute__((noinline)) void c103(void);
__attribute__((noinline)) void c103(void) { c104(); __asm__ volatile(""); }
__attribute__((noinline)) void c102(void);
__attribute__((noinline)) void c102(void) { c103(); __asm__ volatile(""); }
__attribute__((noinline)) void c101(void);
__attribute__((noinline)) void c101(void) { c102(); __asm__ volatile(""); }
__attribute__((noinline)) void c100(void);
__attribute__((noinline)) void c100(void) { c101(); __asm__ volatile(""); }
__attribute__((noinline)) void c99(void);
__attribute__((noinline)) void c99(void) { c100(); __asm__ volatile(""); }
__attribute__((noinline)) void c98(void);
__attribute__((noinline)) void c98(void) { c99(); __asm__ volatile(""); }
__attribute__((noinline)) void c97(void);
__attribute__((noinline)) void c97(void) { c98(); __asm__ volatile(""); }
__attribute__((noinline)) void c96(void);
__attribute__((noinline)) void c96(void) { c97(); __asm__ volatile(""); }
__attribute__((noinline)) void c95(void);
__attribute__((noinline)) void c95(void) { c96(); __asm__ volatile(""); }
__attribute__((noinline)) void c94(void);
__attribute__((noinline)) void c94(void) { c95(); __asm__ volatile(""); }
__attribute__((noinline)) void c93(void);
__attribute__((noinline)) void c93(void) { c94(); __asm__ volatile(""); }
__attribute__((noinline)) void c92(void);
__attribute__((noinline)) void c92(void) { c93(); __asm__ volatile(""); }
__attribute__((noinline)) void c91(void);
__attribute__((noinline)) void c91(void) { c92(); __asm__ volatile(""); }
__attribute__((noinline)) void c90(void);
__attribute__((noinline)) void c90(void) { c91(); __asm__ volatile(""); }
__attribute__((noinline)) void c89(void);
__attribute__((noinline)) void c89(void) { c90(); __asm__ volatile(""); }
__attribute__((noinline)) void c88(void);
__attribute__((noinline)) void c88(void) { c89(); __asm__ volatile(""); }
__attribute__((noinline)) void c87(void);
__attribute__((noinline)) void c87(void) { c88(); __asm__ volatile(""); }
__attribute__((noinline)) void c86(void);
__attribute__((noinline)) void c86(void) { c87(); __asm__ volatile(""); }
__attribute__((noinline)) void c85(void);
__attribute__((noinline)) void c85(void) { c86(); __asm__ volatile(""); }
__attribute__((noinline)) void c84(void);
__attribute__((noinline)) void c84(void) { c85(); __asm__ volatile(""); }
__attribute__((noinline)) void c83(void);
__attribute__((noinline)) void c83(void) { c84(); __asm__ volatile(""); }
__attribute__((noinline)) void c82(void);
__attribute__((noinline)) void c82(void) { c83(); __asm__ volatile(""); }
__attribute__((noinline)) void c81(void);
__attribute__((noinline)) void c81(void) { c82(); __asm__ volatile(""); }
__attribute__((noinline)) void c80(void);
__attribute__((noinline)) void c80(void) { c81(); __asm__ volatile(""); }
__attribute__((noinline)) void c79(void);
__attribute__((noinline)) void c79(void) { c80(); __asm__ volatile(""); }
__attribute__((noinline)) void c78(void);
__attribute__((noinline)) void c78(void) { c79(); __asm__ volatile(""); }
__attribute__((noinline)) void c77(void);
__attribute__((noinline)) void c77(void) { c78(); __asm__ volatile(""); }
__attribute__((noinline)) void c76(void);
__attribute__((noinline)) void c76(void) { c77(); __asm__ volatile(""); }
__attribute__((noinline)) void c75(void);
__attribute__((noinline)) void c75(void) { c76(); __asm__ volatile(""); }
__attribute__((noinline)) void c74(void);
__attribute__((noinline)) void c74(void) { c75(); __asm__ volatile(""); }
__attribute__((noinline)) void c73(void);
__attribute__((noinline)) void c73(void) { c74(); __asm__ volatile(""); }
__attribute__((noinline)) void c72(void);
__attribute__((noinline)) void c72(void) { c73(); __asm__ volatile(""); }
__attribute__((noinline)) void c71(void);
__attribute__((noinline)) void c71(void) { c72(); __asm__ volatile(""); }
__attribute__((noinline)) void c70(void);
__attribute__((noinline)) void c70(void) { c71(); __asm__ volatile(""); }
__attribute__((noinline)) void c69(void);
__attribute__((noinline)) void c69(void) { c70(); __asm__ volatile(""); }
__attribute__((noinline)) void c68(void);
__attribute__((noinline)) void c68(void) { c69(); __asm__ volatile(""); }
__attribute__((noinline)) void c67(void);
__attribute__((noinline)) void c67(void) { c68(); __asm__ volatile(""); }
__attribute__((noinline)) void c66(void);
__attribute__((noinline)) void c66(void) { c67(); __asm__ volatile(""); }
__attribute__((noinline)) void c65(void);
__attribute__((noinline)) void c65(void) { c66(); __asm__ volatile(""); }
__attribute__((noinline)) void c64(void);
__attribute__((noinline)) void c64(void) { c65(); __asm__ volatile(""); }
__attribute__((noinline)) void c63(void);
__attribute__((noinline)) void c63(void) { c64(); __asm__ volatile(""); }
__attribute__((noinline)) void c62(void);
__attribute__((noinline)) void c62(void) { c63(); __asm__ volatile(""); }
__attribute__((noinline)) void c61(void);
__attribute__((noinline)) void c61(void) { c62(); __asm__ volatile(""); }
__attribute__((noinline)) void c60(void);
__attribute__((noinline)) void c60(void) { c61(); __asm__ volatile(""); }
__attribute__((noinline)) void c59(void);
__attribute__((noinline)) void c59(void) { c60(); __asm__ volatile(""); }
__attribute__((noinline)) void c58(void);
__attribute__((noinline)) void c58(void) { c59(); __asm__ volatile(""); }
__attribute__((noinline)) void c57(void);
__attribute__((noinline)) void c57(void) { c58(); __asm__ volatile(""); }
__attribute__((noinline)) void c56(void);
__attribute__((noinline)) void c56(void) { c57(); __asm__ volatile(""); }
__attribute__((noinline)) void c55(void);
__attribute__((noinline)) void c55(void) { c56(); __asm__ volatile(""); }
__attribute__((noinline)) void c54(void);
__attribute__((noinline)) void c54(void) { c55(); __asm__ volatile(""); }
__attribute__((noinline)) void c53(void);
__attribute__((noinline)) void c53(void) { c54(); __asm__ volatile(""); }
__attribute__((noinline)) void c52(void);
__attribute__((noinline)) void c52(void) { c53(); __asm__ volatile(""); }
__attribute__((noinline)) void c51(void);
__attribute__((noinline)) void c51(void) { c52(); __asm__ volatile(""); }
__attribute__((noinline)) void c50(void);
__attribute__((noinline)) void c50(void) { c51(); __asm__ volatile(""); }
__attribute__((noinline)) void c49(void);
__attribute__((noinline)) void c49(void) { c50(); __asm__ volatile(""); }
__attribute__((noinline)) void c48(void);
__attribute__((noinline)) void c48(void) { c49(); __asm__ volatile(""); }
__attribute__((noinline)) void c47(void);
__attribute__((noinline)) void c47(void) { c48(); __asm__ volatile(""); }
__attribute__((noinline)) void c46(void);
__attribute__((noinline)) void c46(void) { c47(); __asm__ volatile(""); }
__attribute__((noinline)) void c45(void);
__attribute__((noinline)) void c45(void) { c46(); __asm__ volatile(""); }
__attribute__((noinline)) void c44(void);
__attribute__((noinline)) void c44(void) { c45(); __asm__ volatile(""); }
__attribute__((noinline)) void c43(void);
__attribute__((noinline)) void c43(void) { c44(); __asm__ volatile(""); }
__attribute__((noinline)) void c42(void);
__attribute__((noinline)) void c42(void) { c43(); __asm__ volatile(""); }
__attribute__((noinline)) void c41(void);
__attribute__((noinline)) void c41(void) { c42(); __asm__ volatile(""); }
__attribute__((noinline)) void c40(void);
__attribute__((noinline)) void c40(void) { c41(); __asm__ volatile(""); }
__attribute__((noinline)) void c39(void);
__attribute__((noinline)) void c39(void) { c40(); __asm__ volatile(""); }
__attribute__((noinline)) void c38(void);
__attribute__((noinline)) void c38(void) { c39(); __asm__ volatile(""); }
__attribute__((noinline)) void c37(void);
__attribute__((noinline)) void c37(void) { c38(); __asm__ volatile(""); }
__attribute__((noinline)) void c36(void);
__attribute__((noinline)) void c36(void) { c37(); __asm__ volatile(""); }
__attribute__((noinline)) void c35(void);
__attribute__((noinline)) void c35(void) { c36(); __asm__ volatile(""); }
__attribute__((noinline)) void c34(void);
__attribute__((noinline)) void c34(void) { c35(); __asm__ volatile(""); }
__attribute__((noinline)) void c33(void);
__attribute__((noinline)) void c33(void) { c34(); __asm__ volatile(""); }
__attribute__((noinline)) void c32(void);
__attribute__((noinline)) void c32(void) { c33(); __asm__ volatile(""); }
__attribute__((noinline)) void c31(void);
__attribute__((noinline)) void c31(void) { c32(); __asm__ volatile(""); }
__attribute__((noinline)) void c30(void);
__attribute__((noinline)) void c30(void) { c31(); __asm__ volatile(""); }
__attribute__((noinline)) void c29(void);
__attribute__((noinline)) void c29(void) { c30(); __asm__ volatile(""); }
__attribute__((noinline)) void c28(void);
__attribute__((noinline)) void c28(void) { c29(); __asm__ volatile(""); }
__attribute__((noinline)) void c27(void);
__attribute__((noinline)) void c27(void) { c28(); __asm__ volatile(""); }
__attribute__((noinline)) void c26(void);
__attribute__((noinline)) void c26(void) { c27(); __asm__ volatile(""); }
__attribute__((noinline)) void c25(void);
__attribute__((noinline)) void c25(void) { c26(); __asm__ volatile(""); }
__attribute__((noinline)) void c24(void);
__attribute__((noinline)) void c24(void) { c25(); __asm__ volatile(""); }
__attribute__((noinline)) void c23(void);
__attribute__((noinline)) void c23(void) { c24(); __asm__ volatile(""); }
__attribute__((noinline)) void c22(void);
__attribute__((noinline)) void c22(void) { c23(); __asm__ volatile(""); }
__attribute__((noinline)) void c21(void);
__attribute__((noinline)) void c21(void) { c22(); __asm__ volatile(""); }
__attribute__((noinline)) void c20(void);
__attribute__((noinline)) void c20(void) { c21(); __asm__ volatile(""); }
__attribute__((noinline)) void c19(void);
__attribute__((noinline)) void c19(void) { c20(); __asm__ volatile(""); }
__attribute__((noinline)) void c18(void);
__attribute__((noinline)) void c18(void) { c19(); __asm__ volatile(""); }
__attribute__((noinline)) void c17(void);
__attribute__((noinline)) void c17(void) { c18(); __asm__ volatile(""); }
__attribute__((noinline)) void c16(void);
__attribute__((noinline)) void c16(void) { c17(); __asm__ volatile(""); }
__attribute__((noinline)) void c15(void);
__attribute__((noinline)) void c15(void) { c16(); __asm__ volatile(""); }
__attribute__((noinline)) void c14(void);
__attribute__((noinline)) void c14(void) { c15(); __asm__ volatile(""); }
__attribute__((noinline)) void c13(void);
__attribute__((noinline)) void c13(void) { c14(); __asm__ volatile(""); }
__attribute__((noinline)) void c12(void);
__attribute__((noinline)) void c12(void) { c13(); __asm__ volatile(""); }
__attribute__((noinline)) void c11(void);
__attribute__((noinline)) void c11(void) { c12(); __asm__ volatile(""); }
__attribute__((noinline)) void c10(void);
__attribute__((noinline)) void c10(void) { c11(); __asm__ volatile(""); }
__attribute__((noinline)) void c9(void);
__attribute__((noinline)) void c9(void) { c10(); __asm__ volatile(""); }
__attribute__((noinline)) void c8(void);
__attribute__((noinline)) void c8(void) { c9(); __asm__ volatile(""); }
__attribute__((noinline)) void c7(void);
__attribute__((noinline)) void c7(void) { c8(); __asm__ volatile(""); }
__attribute__((noinline)) void c6(void);
__attribute__((noinline)) void c6(void) { c7(); __asm__ volatile(""); }
__attribute__((noinline)) void c5(void);
__attribute__((noinline)) void c5(void) { c6(); __asm__ volatile(""); }
__attribute__((noinline)) void c4(void);
__attribute__((noinline)) void c4(void) { c5(); __asm__ volatile(""); }
__attribute__((noinline)) void c3(void);
__attribute__((noinline)) void c3(void) { c4(); __asm__ volatile(""); }
__attribute__((noinline)) void c2(void);
__attribute__((noinline)) void c2(void) { c3(); __asm__ volatile(""); }
__attribute__((noinline)) void c1(void);
__attribute__((noinline)) void c1(void) { c2(); __asm__ volatile(""); }
__attribute__((noinline)) void c0(void);
__attribute__((noinline)) void c0(void) { c1(); __asm__ volatile(""); }

int main(int argc, char **argv)
{
	steps = arg_m(argc, argv, 1, 300);
	c0();
	return 0;
}
