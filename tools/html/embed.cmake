# tools/html/embed.cmake - turn a text file into a C string at build time.
# cmake -DIN=report.html -DOUT=report_html.c -DNAME=hp_html_report -P embed.cmake
# Defines `const char NAME[]` (NUL-terminated) and `const unsigned long NAME_len`.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" nhex)
math(EXPR len "${nhex} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# 16 bytes a line keeps the generated file readable in a debugger
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT}.tmp
  "/* generated from ${IN} by tools/html/embed.cmake: do not edit */\n"
  "const char ${NAME}[] = {\n${bytes}0x00};\n"
  "const unsigned long ${NAME}_len = ${len};\n")
file(RENAME ${OUT}.tmp ${OUT})
