# Writes IN as a C++ raw string literal into OUT (cmake -DIN=... -DOUT=... -P embed_text.cmake).
file(READ "${IN}" text)
file(WRITE "${OUT}.tmp" "R\"gpucost_embed(${text})gpucost_embed\"\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
