// A tiny PNG reader for the Chromium test: decodes an 8-bit RGB or RGBA PNG (what Chromium's
// --screenshot writes) with zlib and says whether the picture is blank.
// Usage: gpucost_png_check FILE.png MIN_DISTINCT_COLOURS MIN_NON_WHITE_PERCENT
// Exit 0 when the picture has at least that many distinct colours and non-white pixels.
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

struct Image {
  std::uint32_t width = 0, height = 0;
  int channels = 0;
  std::vector<unsigned char> pixels;  // width x height x channels, unfiltered
};

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

int paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/// Undoes the per-row filters (PNG spec 9.2) of the inflated data.
bool unfilter(const std::vector<unsigned char>& raw, Image& img) {
  const std::size_t stride = std::size_t{img.width} * static_cast<std::size_t>(img.channels);
  if (raw.size() < (stride + 1) * img.height) return false;
  img.pixels.assign(stride * img.height, 0);
  const int bpp = img.channels;
  for (std::size_t y = 0; y < img.height; ++y) {
    const unsigned char filter = raw[y * (stride + 1)];
    const unsigned char* in = &raw[y * (stride + 1) + 1];
    unsigned char* out = &img.pixels[y * stride];
    const unsigned char* up = y > 0 ? &img.pixels[(y - 1) * stride] : nullptr;
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= static_cast<std::size_t>(bpp) ? out[x - static_cast<std::size_t>(bpp)] : 0;
      const int b = up != nullptr ? up[x] : 0;
      const int c = up != nullptr && x >= static_cast<std::size_t>(bpp) ? up[x - static_cast<std::size_t>(bpp)] : 0;
      int predictor = 0;
      switch (filter) {
        case 0: predictor = 0; break;
        case 1: predictor = a; break;
        case 2: predictor = b; break;
        case 3: predictor = (a + b) / 2; break;
        case 4: predictor = paeth(a, b, c); break;
        default: return false;
      }
      out[x] = static_cast<unsigned char>(in[x] + predictor);
    }
  }
  return true;
}

bool read_png(const std::string& path, Image& img, std::string& why) {
  std::ifstream f(path, std::ios::binary);
  const std::vector<unsigned char> data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  static const unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (data.size() < 8 || !std::equal(kSignature, kSignature + 8, data.begin())) return why = "not a PNG", false;
  std::vector<unsigned char> idat;
  for (std::size_t at = 8; at + 12 <= data.size();) {
    const std::uint32_t len = be32(&data[at]);
    const std::string type(data.begin() + static_cast<std::ptrdiff_t>(at) + 4,
                           data.begin() + static_cast<std::ptrdiff_t>(at) + 8);
    if (at + 12 + len > data.size()) return why = "cut-short chunk", false;
    const unsigned char* body = &data[at + 8];
    if (type == "IHDR") {
      img.width = be32(body);
      img.height = be32(body + 4);
      const int depth = body[8], colour = body[9], interlace = body[12];
      if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0)
        return why = "only 8-bit RGB/RGBA, not interlaced", false;
      img.channels = colour == 2 ? 3 : 4;
    } else if (type == "IDAT") {
      idat.insert(idat.end(), body, body + len);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + len;
  }
  if (img.channels == 0 || img.width == 0 || img.height == 0) return why = "no image header", false;
  std::vector<unsigned char> raw((std::size_t{img.width} * static_cast<std::size_t>(img.channels) + 1) * img.height);
  uLongf raw_len = raw.size();
  if (uncompress(raw.data(), &raw_len, idat.data(), idat.size()) != Z_OK) return why = "bad image data", false;
  raw.resize(raw_len);
  if (!unfilter(raw, img)) return why = "bad filter", false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s FILE.png MIN_DISTINCT_COLOURS MIN_NON_WHITE_PERCENT\n", argv[0]);
    return 2;
  }
  Image img;
  std::string why;
  if (!read_png(argv[1], img, why)) {
    std::fprintf(stderr, "%s: %s\n", argv[1], why.c_str());
    return 1;
  }
  std::unordered_set<std::uint32_t> colours;
  std::size_t non_white = 0;
  const std::size_t n = std::size_t{img.width} * img.height;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char* p = &img.pixels[i * static_cast<std::size_t>(img.channels)];
    colours.insert((std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2]);
    if (p[0] < 245 || p[1] < 245 || p[2] < 245) ++non_white;
  }
  const double non_white_pct = 100.0 * static_cast<double>(non_white) / static_cast<double>(n);
  std::printf("%s: %ux%u, %zu distinct colours, %.2f %% non-white pixels\n", argv[1], img.width, img.height,
              colours.size(), non_white_pct);
  const bool drawn =
      colours.size() >= std::strtoul(argv[2], nullptr, 10) && non_white_pct >= std::strtod(argv[3], nullptr);
  if (!drawn) std::printf("the picture looks blank\n");
  return drawn ? 0 : 1;
}
