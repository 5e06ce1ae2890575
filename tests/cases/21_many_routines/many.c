/* 200 routines in a chain (g0 calls g1 ... g199), generated once; routines defined
 * by a macro; main returns 4.  noinline: timed, not counted at their sites. */
#include <stdio.h>

#define DEF_TWICE(name, k) __attribute__((noinline)) int name(int x) { return x * 2 + k; }
DEF_TWICE(tw1, 1)
DEF_TWICE(tw2, 2)

int g0(int x);
int g1(int x);
int g2(int x);
int g3(int x);
int g4(int x);
int g5(int x);
int g6(int x);
int g7(int x);
int g8(int x);
int g9(int x);
int g10(int x);
int g11(int x);
int g12(int x);
int g13(int x);
int g14(int x);
int g15(int x);
int g16(int x);
int g17(int x);
int g18(int x);
int g19(int x);
int g20(int x);
int g21(int x);
int g22(int x);
int g23(int x);
int g24(int x);
int g25(int x);
int g26(int x);
int g27(int x);
int g28(int x);
int g29(int x);
int g30(int x);
int g31(int x);
int g32(int x);
int g33(int x);
int g34(int x);
int g35(int x);
int g36(int x);
int g37(int x);
int g38(int x);
int g39(int x);
int g40(int x);
int g41(int x);
int g42(int x);
int g43(int x);
int g44(int x);
int g45(int x);
int g46(int x);
int g47(int x);
int g48(int x);
int g49(int x);
int g50(int x);
int g51(int x);
int g52(int x);
int g53(int x);
int g54(int x);
int g55(int x);
int g56(int x);
int g57(int x);
int g58(int x);
int g59(int x);
int g60(int x);
int g61(int x);
int g62(int x);
int g63(int x);
int g64(int x);
int g65(int x);
int g66(int x);
int g67(int x);
int g68(int x);
int g69(int x);
int g70(int x);
int g71(int x);
int g72(int x);
int g73(int x);
int g74(int x);
int g75(int x);
int g76(int x);
int g77(int x);
int g78(int x);
int g79(int x);
int g80(int x);
int g81(int x);
int g82(int x);
int g83(int x);
int g84(int x);
int g85(int x);
int g86(int x);
int g87(int x);
int g88(int x);
int g89(int x);
int g90(int x);
int g91(int x);
int g92(int x);
int g93(int x);
int g94(int x);
int g95(int x);
int g96(int x);
int g97(int x);
int g98(int x);
int g99(int x);
int g100(int x);
int g101(int x);
int g102(int x);
int g103(int x);
int g104(int x);
int g105(int x);
int g106(int x);
int g107(int x);
int g108(int x);
int g109(int x);
int g110(int x);
int g111(int x);
int g112(int x);
int g113(int x);
int g114(int x);
int g115(int x);
int g116(int x);
int g117(int x);
int g118(int x);
int g119(int x);
int g120(int x);
int g121(int x);
int g122(int x);
int g123(int x);
int g124(int x);
int g125(int x);
int g126(int x);
int g127(int x);
int g128(int x);
int g129(int x);
int g130(int x);
int g131(int x);
int g132(int x);
int g133(int x);
int g134(int x);
int g135(int x);
int g136(int x);
int g137(int x);
int g138(int x);
int g139(int x);
int g140(int x);
int g141(int x);
int g142(int x);
int g143(int x);
int g144(int x);
int g145(int x);
int g146(int x);
int g147(int x);
int g148(int x);
int g149(int x);
int g150(int x);
int g151(int x);
int g152(int x);
int g153(int x);
int g154(int x);
int g155(int x);
int g156(int x);
int g157(int x);
int g158(int x);
int g159(int x);
int g160(int x);
int g161(int x);
int g162(int x);
int g163(int x);
int g164(int x);
int g165(int x);
int g166(int x);
int g167(int x);
int g168(int x);
int g169(int x);
int g170(int x);
int g171(int x);
int g172(int x);
int g173(int x);
int g174(int x);
int g175(int x);
int g176(int x);
int g177(int x);
int g178(int x);
int g179(int x);
int g180(int x);
int g181(int x);
int g182(int x);
int g183(int x);
int g184(int x);
int g185(int x);
int g186(int x);
int g187(int x);
int g188(int x);
int g189(int x);
int g190(int x);
int g191(int x);
int g192(int x);
int g193(int x);
int g194(int x);
int g195(int x);
int g196(int x);
int g197(int x);
int g198(int x);
int g199(int x);
__attribute__((noinline)) int g0(int x) { return x > 0 ? g1(x - 1) + 1 : 0; }
__attribute__((noinline)) int g1(int x) { return x > 0 ? g2(x - 1) + 1 : 0; }
__attribute__((noinline)) int g2(int x) { return x > 0 ? g3(x - 1) + 1 : 0; }
__attribute__((noinline)) int g3(int x) { return x > 0 ? g4(x - 1) + 1 : 0; }
__attribute__((noinline)) int g4(int x) { return x > 0 ? g5(x - 1) + 1 : 0; }
__attribute__((noinline)) int g5(int x) { return x > 0 ? g6(x - 1) + 1 : 0; }
__attribute__((noinline)) int g6(int x) { return x > 0 ? g7(x - 1) + 1 : 0; }
__attribute__((noinline)) int g7(int x) { return x > 0 ? g8(x - 1) + 1 : 0; }
__attribute__((noinline)) int g8(int x) { return x > 0 ? g9(x - 1) + 1 : 0; }
__attribute__((noinline)) int g9(int x) { return x > 0 ? g10(x - 1) + 1 : 0; }
__attribute__((noinline)) int g10(int x) { return x > 0 ? g11(x - 1) + 1 : 0; }
__attribute__((noinline)) int g11(int x) { return x > 0 ? g12(x - 1) + 1 : 0; }
__attribute__((noinline)) int g12(int x) { return x > 0 ? g13(x - 1) + 1 : 0; }
__attribute__((noinline)) int g13(int x) { return x > 0 ? g14(x - 1) + 1 : 0; }
__attribute__((noinline)) int g14(int x) { return x > 0 ? g15(x - 1) + 1 : 0; }
__attribute__((noinline)) int g15(int x) { return x > 0 ? g16(x - 1) + 1 : 0; }
__attribute__((noinline)) int g16(int x) { return x > 0 ? g17(x - 1) + 1 : 0; }
__attribute__((noinline)) int g17(int x) { return x > 0 ? g18(x - 1) + 1 : 0; }
__attribute__((noinline)) int g18(int x) { return x > 0 ? g19(x - 1) + 1 : 0; }
__attribute__((noinline)) int g19(int x) { return x > 0 ? g20(x - 1) + 1 : 0; }
__attribute__((noinline)) int g20(int x) { return x > 0 ? g21(x - 1) + 1 : 0; }
__attribute__((noinline)) int g21(int x) { return x > 0 ? g22(x - 1) + 1 : 0; }
__attribute__((noinline)) int g22(int x) { return x > 0 ? g23(x - 1) + 1 : 0; }
__attribute__((noinline)) int g23(int x) { return x > 0 ? g24(x - 1) + 1 : 0; }
__attribute__((noinline)) int g24(int x) { return x > 0 ? g25(x - 1) + 1 : 0; }
__attribute__((noinline)) int g25(int x) { return x > 0 ? g26(x - 1) + 1 : 0; }
__attribute__((noinline)) int g26(int x) { return x > 0 ? g27(x - 1) + 1 : 0; }
__attribute__((noinline)) int g27(int x) { return x > 0 ? g28(x - 1) + 1 : 0; }
__attribute__((noinline)) int g28(int x) { return x > 0 ? g29(x - 1) + 1 : 0; }
__attribute__((noinline)) int g29(int x) { return x > 0 ? g30(x - 1) + 1 : 0; }
__attribute__((noinline)) int g30(int x) { return x > 0 ? g31(x - 1) + 1 : 0; }
__attribute__((noinline)) int g31(int x) { return x > 0 ? g32(x - 1) + 1 : 0; }
__attribute__((noinline)) int g32(int x) { return x > 0 ? g33(x - 1) + 1 : 0; }
__attribute__((noinline)) int g33(int x) { return x > 0 ? g34(x - 1) + 1 : 0; }
__attribute__((noinline)) int g34(int x) { return x > 0 ? g35(x - 1) + 1 : 0; }
__attribute__((noinline)) int g35(int x) { return x > 0 ? g36(x - 1) + 1 : 0; }
__attribute__((noinline)) int g36(int x) { return x > 0 ? g37(x - 1) + 1 : 0; }
__attribute__((noinline)) int g37(int x) { return x > 0 ? g38(x - 1) + 1 : 0; }
__attribute__((noinline)) int g38(int x) { return x > 0 ? g39(x - 1) + 1 : 0; }
__attribute__((noinline)) int g39(int x) { return x > 0 ? g40(x - 1) + 1 : 0; }
__attribute__((noinline)) int g40(int x) { return x > 0 ? g41(x - 1) + 1 : 0; }
__attribute__((noinline)) int g41(int x) { return x > 0 ? g42(x - 1) + 1 : 0; }
__attribute__((noinline)) int g42(int x) { return x > 0 ? g43(x - 1) + 1 : 0; }
__attribute__((noinline)) int g43(int x) { return x > 0 ? g44(x - 1) + 1 : 0; }
__attribute__((noinline)) int g44(int x) { return x > 0 ? g45(x - 1) + 1 : 0; }
__attribute__((noinline)) int g45(int x) { return x > 0 ? g46(x - 1) + 1 : 0; }
__attribute__((noinline)) int g46(int x) { return x > 0 ? g47(x - 1) + 1 : 0; }
__attribute__((noinline)) int g47(int x) { return x > 0 ? g48(x - 1) + 1 : 0; }
__attribute__((noinline)) int g48(int x) { return x > 0 ? g49(x - 1) + 1 : 0; }
__attribute__((noinline)) int g49(int x) { return x > 0 ? g50(x - 1) + 1 : 0; }
__attribute__((noinline)) int g50(int x) { return x > 0 ? g51(x - 1) + 1 : 0; }
__attribute__((noinline)) int g51(int x) { return x > 0 ? g52(x - 1) + 1 : 0; }
__attribute__((noinline)) int g52(int x) { return x > 0 ? g53(x - 1) + 1 : 0; }
__attribute__((noinline)) int g53(int x) { return x > 0 ? g54(x - 1) + 1 : 0; }
__attribute__((noinline)) int g54(int x) { return x > 0 ? g55(x - 1) + 1 : 0; }
__attribute__((noinline)) int g55(int x) { return x > 0 ? g56(x - 1) + 1 : 0; }
__attribute__((noinline)) int g56(int x) { return x > 0 ? g57(x - 1) + 1 : 0; }
__attribute__((noinline)) int g57(int x) { return x > 0 ? g58(x - 1) + 1 : 0; }
__attribute__((noinline)) int g58(int x) { return x > 0 ? g59(x - 1) + 1 : 0; }
__attribute__((noinline)) int g59(int x) { return x > 0 ? g60(x - 1) + 1 : 0; }
__attribute__((noinline)) int g60(int x) { return x > 0 ? g61(x - 1) + 1 : 0; }
__attribute__((noinline)) int g61(int x) { return x > 0 ? g62(x - 1) + 1 : 0; }
__attribute__((noinline)) int g62(int x) { return x > 0 ? g63(x - 1) + 1 : 0; }
__attribute__((noinline)) int g63(int x) { return x > 0 ? g64(x - 1) + 1 : 0; }
__attribute__((noinline)) int g64(int x) { return x > 0 ? g65(x - 1) + 1 : 0; }
__attribute__((noinline)) int g65(int x) { return x > 0 ? g66(x - 1) + 1 : 0; }
__attribute__((noinline)) int g66(int x) { return x > 0 ? g67(x - 1) + 1 : 0; }
__attribute__((noinline)) int g67(int x) { return x > 0 ? g68(x - 1) + 1 : 0; }
__attribute__((noinline)) int g68(int x) { return x > 0 ? g69(x - 1) + 1 : 0; }
__attribute__((noinline)) int g69(int x) { return x > 0 ? g70(x - 1) + 1 : 0; }
__attribute__((noinline)) int g70(int x) { return x > 0 ? g71(x - 1) + 1 : 0; }
__attribute__((noinline)) int g71(int x) { return x > 0 ? g72(x - 1) + 1 : 0; }
__attribute__((noinline)) int g72(int x) { return x > 0 ? g73(x - 1) + 1 : 0; }
__attribute__((noinline)) int g73(int x) { return x > 0 ? g74(x - 1) + 1 : 0; }
__attribute__((noinline)) int g74(int x) { return x > 0 ? g75(x - 1) + 1 : 0; }
__attribute__((noinline)) int g75(int x) { return x > 0 ? g76(x - 1) + 1 : 0; }
__attribute__((noinline)) int g76(int x) { return x > 0 ? g77(x - 1) + 1 : 0; }
__attribute__((noinline)) int g77(int x) { return x > 0 ? g78(x - 1) + 1 : 0; }
__attribute__((noinline)) int g78(int x) { return x > 0 ? g79(x - 1) + 1 : 0; }
__attribute__((noinline)) int g79(int x) { return x > 0 ? g80(x - 1) + 1 : 0; }
__attribute__((noinline)) int g80(int x) { return x > 0 ? g81(x - 1) + 1 : 0; }
__attribute__((noinline)) int g81(int x) { return x > 0 ? g82(x - 1) + 1 : 0; }
__attribute__((noinline)) int g82(int x) { return x > 0 ? g83(x - 1) + 1 : 0; }
__attribute__((noinline)) int g83(int x) { return x > 0 ? g84(x - 1) + 1 : 0; }
__attribute__((noinline)) int g84(int x) { return x > 0 ? g85(x - 1) + 1 : 0; }
__attribute__((noinline)) int g85(int x) { return x > 0 ? g86(x - 1) + 1 : 0; }
__attribute__((noinline)) int g86(int x) { return x > 0 ? g87(x - 1) + 1 : 0; }
__attribute__((noinline)) int g87(int x) { return x > 0 ? g88(x - 1) + 1 : 0; }
__attribute__((noinline)) int g88(int x) { return x > 0 ? g89(x - 1) + 1 : 0; }
__attribute__((noinline)) int g89(int x) { return x > 0 ? g90(x - 1) + 1 : 0; }
__attribute__((noinline)) int g90(int x) { return x > 0 ? g91(x - 1) + 1 : 0; }
__attribute__((noinline)) int g91(int x) { return x > 0 ? g92(x - 1) + 1 : 0; }
__attribute__((noinline)) int g92(int x) { return x > 0 ? g93(x - 1) + 1 : 0; }
__attribute__((noinline)) int g93(int x) { return x > 0 ? g94(x - 1) + 1 : 0; }
__attribute__((noinline)) int g94(int x) { return x > 0 ? g95(x - 1) + 1 : 0; }
__attribute__((noinline)) int g95(int x) { return x > 0 ? g96(x - 1) + 1 : 0; }
__attribute__((noinline)) int g96(int x) { return x > 0 ? g97(x - 1) + 1 : 0; }
__attribute__((noinline)) int g97(int x) { return x > 0 ? g98(x - 1) + 1 : 0; }
__attribute__((noinline)) int g98(int x) { return x > 0 ? g99(x - 1) + 1 : 0; }
__attribute__((noinline)) int g99(int x) { return x > 0 ? g100(x - 1) + 1 : 0; }
__attribute__((noinline)) int g100(int x) { return x > 0 ? g101(x - 1) + 1 : 0; }
__attribute__((noinline)) int g101(int x) { return x > 0 ? g102(x - 1) + 1 : 0; }
__attribute__((noinline)) int g102(int x) { return x > 0 ? g103(x - 1) + 1 : 0; }
__attribute__((noinline)) int g103(int x) { return x > 0 ? g104(x - 1) + 1 : 0; }
__attribute__((noinline)) int g104(int x) { return x > 0 ? g105(x - 1) + 1 : 0; }
__attribute__((noinline)) int g105(int x) { return x > 0 ? g106(x - 1) + 1 : 0; }
__attribute__((noinline)) int g106(int x) { return x > 0 ? g107(x - 1) + 1 : 0; }
__attribute__((noinline)) int g107(int x) { return x > 0 ? g108(x - 1) + 1 : 0; }
__attribute__((noinline)) int g108(int x) { return x > 0 ? g109(x - 1) + 1 : 0; }
__attribute__((noinline)) int g109(int x) { return x > 0 ? g110(x - 1) + 1 : 0; }
__attribute__((noinline)) int g110(int x) { return x > 0 ? g111(x - 1) + 1 : 0; }
__attribute__((noinline)) int g111(int x) { return x > 0 ? g112(x - 1) + 1 : 0; }
__attribute__((noinline)) int g112(int x) { return x > 0 ? g113(x - 1) + 1 : 0; }
__attribute__((noinline)) int g113(int x) { return x > 0 ? g114(x - 1) + 1 : 0; }
__attribute__((noinline)) int g114(int x) { return x > 0 ? g115(x - 1) + 1 : 0; }
__attribute__((noinline)) int g115(int x) { return x > 0 ? g116(x - 1) + 1 : 0; }
__attribute__((noinline)) int g116(int x) { return x > 0 ? g117(x - 1) + 1 : 0; }
__attribute__((noinline)) int g117(int x) { return x > 0 ? g118(x - 1) + 1 : 0; }
__attribute__((noinline)) int g118(int x) { return x > 0 ? g119(x - 1) + 1 : 0; }
__attribute__((noinline)) int g119(int x) { return x > 0 ? g120(x - 1) + 1 : 0; }
__attribute__((noinline)) int g120(int x) { return x > 0 ? g121(x - 1) + 1 : 0; }
__attribute__((noinline)) int g121(int x) { return x > 0 ? g122(x - 1) + 1 : 0; }
__attribute__((noinline)) int g122(int x) { return x > 0 ? g123(x - 1) + 1 : 0; }
__attribute__((noinline)) int g123(int x) { return x > 0 ? g124(x - 1) + 1 : 0; }
__attribute__((noinline)) int g124(int x) { return x > 0 ? g125(x - 1) + 1 : 0; }
__attribute__((noinline)) int g125(int x) { return x > 0 ? g126(x - 1) + 1 : 0; }
__attribute__((noinline)) int g126(int x) { return x > 0 ? g127(x - 1) + 1 : 0; }
__attribute__((noinline)) int g127(int x) { return x > 0 ? g128(x - 1) + 1 : 0; }
__attribute__((noinline)) int g128(int x) { return x > 0 ? g129(x - 1) + 1 : 0; }
__attribute__((noinline)) int g129(int x) { return x > 0 ? g130(x - 1) + 1 : 0; }
__attribute__((noinline)) int g130(int x) { return x > 0 ? g131(x - 1) + 1 : 0; }
__attribute__((noinline)) int g131(int x) { return x > 0 ? g132(x - 1) + 1 : 0; }
__attribute__((noinline)) int g132(int x) { return x > 0 ? g133(x - 1) + 1 : 0; }
__attribute__((noinline)) int g133(int x) { return x > 0 ? g134(x - 1) + 1 : 0; }
__attribute__((noinline)) int g134(int x) { return x > 0 ? g135(x - 1) + 1 : 0; }
__attribute__((noinline)) int g135(int x) { return x > 0 ? g136(x - 1) + 1 : 0; }
__attribute__((noinline)) int g136(int x) { return x > 0 ? g137(x - 1) + 1 : 0; }
__attribute__((noinline)) int g137(int x) { return x > 0 ? g138(x - 1) + 1 : 0; }
__attribute__((noinline)) int g138(int x) { return x > 0 ? g139(x - 1) + 1 : 0; }
__attribute__((noinline)) int g139(int x) { return x > 0 ? g140(x - 1) + 1 : 0; }
__attribute__((noinline)) int g140(int x) { return x > 0 ? g141(x - 1) + 1 : 0; }
__attribute__((noinline)) int g141(int x) { return x > 0 ? g142(x - 1) + 1 : 0; }
__attribute__((noinline)) int g142(int x) { return x > 0 ? g143(x - 1) + 1 : 0; }
__attribute__((noinline)) int g143(int x) { return x > 0 ? g144(x - 1) + 1 : 0; }
__attribute__((noinline)) int g144(int x) { return x > 0 ? g145(x - 1) + 1 : 0; }
__attribute__((noinline)) int g145(int x) { return x > 0 ? g146(x - 1) + 1 : 0; }
__attribute__((noinline)) int g146(int x) { return x > 0 ? g147(x - 1) + 1 : 0; }
__attribute__((noinline)) int g147(int x) { return x > 0 ? g148(x - 1) + 1 : 0; }
__attribute__((noinline)) int g148(int x) { return x > 0 ? g149(x - 1) + 1 : 0; }
__attribute__((noinline)) int g149(int x) { return x > 0 ? g150(x - 1) + 1 : 0; }
__attribute__((noinline)) int g150(int x) { return x > 0 ? g151(x - 1) + 1 : 0; }
__attribute__((noinline)) int g151(int x) { return x > 0 ? g152(x - 1) + 1 : 0; }
__attribute__((noinline)) int g152(int x) { return x > 0 ? g153(x - 1) + 1 : 0; }
__attribute__((noinline)) int g153(int x) { return x > 0 ? g154(x - 1) + 1 : 0; }
__attribute__((noinline)) int g154(int x) { return x > 0 ? g155(x - 1) + 1 : 0; }
__attribute__((noinline)) int g155(int x) { return x > 0 ? g156(x - 1) + 1 : 0; }
__attribute__((noinline)) int g156(int x) { return x > 0 ? g157(x - 1) + 1 : 0; }
__attribute__((noinline)) int g157(int x) { return x > 0 ? g158(x - 1) + 1 : 0; }
__attribute__((noinline)) int g158(int x) { return x > 0 ? g159(x - 1) + 1 : 0; }
__attribute__((noinline)) int g159(int x) { return x > 0 ? g160(x - 1) + 1 : 0; }
__attribute__((noinline)) int g160(int x) { return x > 0 ? g161(x - 1) + 1 : 0; }
__attribute__((noinline)) int g161(int x) { return x > 0 ? g162(x - 1) + 1 : 0; }
__attribute__((noinline)) int g162(int x) { return x > 0 ? g163(x - 1) + 1 : 0; }
__attribute__((noinline)) int g163(int x) { return x > 0 ? g164(x - 1) + 1 : 0; }
__attribute__((noinline)) int g164(int x) { return x > 0 ? g165(x - 1) + 1 : 0; }
__attribute__((noinline)) int g165(int x) { return x > 0 ? g166(x - 1) + 1 : 0; }
__attribute__((noinline)) int g166(int x) { return x > 0 ? g167(x - 1) + 1 : 0; }
__attribute__((noinline)) int g167(int x) { return x > 0 ? g168(x - 1) + 1 : 0; }
__attribute__((noinline)) int g168(int x) { return x > 0 ? g169(x - 1) + 1 : 0; }
__attribute__((noinline)) int g169(int x) { return x > 0 ? g170(x - 1) + 1 : 0; }
__attribute__((noinline)) int g170(int x) { return x > 0 ? g171(x - 1) + 1 : 0; }
__attribute__((noinline)) int g171(int x) { return x > 0 ? g172(x - 1) + 1 : 0; }
__attribute__((noinline)) int g172(int x) { return x > 0 ? g173(x - 1) + 1 : 0; }
__attribute__((noinline)) int g173(int x) { return x > 0 ? g174(x - 1) + 1 : 0; }
__attribute__((noinline)) int g174(int x) { return x > 0 ? g175(x - 1) + 1 : 0; }
__attribute__((noinline)) int g175(int x) { return x > 0 ? g176(x - 1) + 1 : 0; }
__attribute__((noinline)) int g176(int x) { return x > 0 ? g177(x - 1) + 1 : 0; }
__attribute__((noinline)) int g177(int x) { return x > 0 ? g178(x - 1) + 1 : 0; }
__attribute__((noinline)) int g178(int x) { return x > 0 ? g179(x - 1) + 1 : 0; }
__attribute__((noinline)) int g179(int x) { return x > 0 ? g180(x - 1) + 1 : 0; }
__attribute__((noinline)) int g180(int x) { return x > 0 ? g181(x - 1) + 1 : 0; }
__attribute__((noinline)) int g181(int x) { return x > 0 ? g182(x - 1) + 1 : 0; }
__attribute__((noinline)) int g182(int x) { return x > 0 ? g183(x - 1) + 1 : 0; }
__attribute__((noinline)) int g183(int x) { return x > 0 ? g184(x - 1) + 1 : 0; }
__attribute__((noinline)) int g184(int x) { return x > 0 ? g185(x - 1) + 1 : 0; }
__attribute__((noinline)) int g185(int x) { return x > 0 ? g186(x - 1) + 1 : 0; }
__attribute__((noinline)) int g186(int x) { return x > 0 ? g187(x - 1) + 1 : 0; }
__attribute__((noinline)) int g187(int x) { return x > 0 ? g188(x - 1) + 1 : 0; }
__attribute__((noinline)) int g188(int x) { return x > 0 ? g189(x - 1) + 1 : 0; }
__attribute__((noinline)) int g189(int x) { return x > 0 ? g190(x - 1) + 1 : 0; }
__attribute__((noinline)) int g190(int x) { return x > 0 ? g191(x - 1) + 1 : 0; }
__attribute__((noinline)) int g191(int x) { return x > 0 ? g192(x - 1) + 1 : 0; }
__attribute__((noinline)) int g192(int x) { return x > 0 ? g193(x - 1) + 1 : 0; }
__attribute__((noinline)) int g193(int x) { return x > 0 ? g194(x - 1) + 1 : 0; }
__attribute__((noinline)) int g194(int x) { return x > 0 ? g195(x - 1) + 1 : 0; }
__attribute__((noinline)) int g195(int x) { return x > 0 ? g196(x - 1) + 1 : 0; }
__attribute__((noinline)) int g196(int x) { return x > 0 ? g197(x - 1) + 1 : 0; }
__attribute__((noinline)) int g197(int x) { return x > 0 ? g198(x - 1) + 1 : 0; }
__attribute__((noinline)) int g198(int x) { return x > 0 ? g199(x - 1) + 1 : 0; }
__attribute__((noinline)) int g199(int x) { return x; }

int main(void)
{
    int s = 0;
    for (int k = 0; k < 3; k++)
        s += g0(1000);
    s += tw1(10) + tw2(20) + tw1(30);
    printf("%d\n", s);
    return 4;
}
