/*
 * An ordinary WASI command, with no Taintlens marking: textstat ROUNDS FILE
 * reads FILE (through a preopened directory) and standard input, counts the
 * lines, words and bytes of each like wc, then hashes FILE's bytes ROUNDS
 * times and prints the hash. ROUNDS comes from argv through atoi, so a taint
 * run with --param rounds=argv1 finds the loop it drives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct counts {
  long lines, words, bytes;
};

static struct counts count(const unsigned char *text, size_t length) {
  struct counts c = {0, 0, 0};
  int in_word = 0;
  for (size_t i = 0; i < length; i++) {
    unsigned char ch = text[i];
    c.bytes++;
    if (ch == '\n') c.lines++;
    int space = ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r';
    if (!space && !in_word) c.words++;
    in_word = !space;
  }
  return c;
}

static unsigned char *slurp(FILE *stream, size_t *length) {
  size_t size = 0, room = 4096;
  unsigned char *data = malloc(room);
  size_t got;
  while (data && (got = fread(data + size, 1, room - size, stream)) > 0) {
    size += got;
    if (size == room) data = realloc(data, room *= 2);
  }
  *length = size;
  return data;
}

__attribute__((noinline)) unsigned hash_rounds(const unsigned char *text, size_t length, int rounds) {
  unsigned h = 2166136261u;
  for (int r = 0; r < rounds; r++) {
    for (size_t i = 0; i < length; i++) {
      h = (h ^ text[i]) * 16777619u;
    }
  }
  return h;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: textstat ROUNDS FILE\n");
    return 2;
  }
  int rounds = atoi(argv[1]);
  FILE *file = fopen(argv[2], "rb");
  if (!file) {
    fprintf(stderr, "textstat: cannot open '%s'\n", argv[2]);
    return 3;
  }
  size_t file_length, input_length;
  unsigned char *text = slurp(file, &file_length);
  fclose(file);
  unsigned char *input = slurp(stdin, &input_length);
  if (!text || !input) {
    fprintf(stderr, "textstat: out of memory\n");
    return 4;
  }
  struct counts f = count(text, file_length), s = count(input, input_length);
  printf("%s: %ld lines, %ld words, %ld bytes\n", argv[2], f.lines, f.words, f.bytes);
  printf("stdin: %ld lines, %ld words, %ld bytes\n", s.lines, s.words, s.bytes);
  printf("hash after %d rounds: %08x\n", rounds, hash_rounds(text, file_length, rounds));
  free(text);
  free(input);
  return 0;
}
