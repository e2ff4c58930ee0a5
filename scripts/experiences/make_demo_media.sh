#!/usr/bin/env bash
# Regenerates the demo media of the experiences section (Examples/demo/data/experiences/media):
# equirectangular panoramas (ImageMagick), short sounds (espeak-ng + sox) and a short
# video (ffmpeg). Needs: imagemagick sox espeak-ng ffmpeg fonts-dejavu-core (scripts/deps/experiences.apt).
# Then re-imports the Pannellum demo tour with the dossier binary (DOSSIER_BIN or .build-experiences).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=Examples/demo/data/experiences/media
mkdir -p "$OUT"
FONT=DejaVu-Sans

# A 1024×512 equirectangular picture: sky, wall, floor, and labelled objects. x = 512 + yaw/360·1024.
# pano NAME SKY WALL FLOOR "yaw:width:height:colour:label" …
pano() {
  local name=$1 sky=$2 wall=$3 floor=$4; shift 4
  local draw=()
  for obj in "$@"; do
    IFS=: read -r yaw w h colour label <<<"$obj"
    local cx=$(( 512 + yaw * 1024 / 360 ))
    local x0=$(( cx - w / 2 )) x1=$(( cx + w / 2 )) y1=330 y0=$(( 330 - h ))
    draw+=(-fill "$colour" -draw "roundrectangle $x0,$y0 $x1,$y1 6,6")
    draw+=(-fill '#1d2731' -pointsize 18 -annotate "+$(( x0 ))+$(( y0 - 8 ))" "$label")
  done
  convert -size 1024x200 "gradient:$sky-#ffffff" \
    \( -size 1024x150 "xc:$wall" \) \( -size 1024x162 "gradient:$floor-#6b6257" \) -append \
    -font "$FONT" -stroke none "${draw[@]}" \
    -fill '#4a5a6a' -pointsize 14 -annotate +500+480 'front' -annotate +12+480 'back' \
    -strip -sampling-factor 4:2:0 -quality 70 "$OUT/$name.jpg"
}

pano waiting '#a9c8e0' '#e9e1cf' '#b8a98f' "0:120:150:#9bb6c9:Reception desk" "60:70:190:#7d6a55:Door to the hall" "-70:150:60:#c4d4b4:Chairs" "150:90:120:#d9c7a0:Fish tank"
pano hall '#b3c7d6' '#e4e7e1' '#a89c88' "0:70:200:#7d6a55:Door to the room" "-120:70:200:#7d6a55:Back to waiting" "90:100:90:#cfd9e6:Picture"
pano chair '#c6d6e2' '#f0efe9' '#a3a7a8' "0:160:130:#8fb5a8:Dentist chair" "45:80:160:#e6e0d0:Lamp" "-45:110:110:#bcc7d4:Sink" "170:70:200:#7d6a55:Way out"
pano park-gate '#9ec8e8' '#cfe3c1' '#7c9a5c' "0:90:170:#7a5c3e:Gate" "100:120:90:#5f8f4e:Hedge" "-100:60:150:#8a8f96:Lamp post"
pano park-pond '#9ec8e8' '#cfe3c1' '#6f8f8f' "0:220:60:#5b8fb0:Pond" "-150:90:170:#7a5c3e:Back to the gate" "120:80:110:#a07b4f:Bench"

# Sounds: 16 kHz mono 16-bit PCM, peak-normalised so their loudness is alike.
voice() { espeak-ng -v en -s 140 -w "$OUT/tmp.wav" "$2"; sox "$OUT/tmp.wav" -r 16000 -b 16 -c 1 "$OUT/$1.wav" gain -n -8; rm -f "$OUT/tmp.wav"; }
voice hello "Hello. Please sit down."
voice open-wide "Open wide, please."
sox -n -r 16000 -b 16 -c 1 "$OUT/drill.wav" synth 1.2 sine 880 sine 1320 remix - tremolo 30 60 gain -n -16 fade 0.1 1.2 0.2

# Video: 2 s, 256×144, H.264 + AAC, calm (a slowly drifting soft gradient with a caption, no flashing).
ffmpeg -loglevel error -y \
  -f lavfi -i "gradients=size=256x144:rate=15:duration=2:speed=0.02:c0=0x8fb5a8:c1=0xe6e0d0:c2=0xa9c8e0:nb_colors=3" \
  -f lavfi -i "sine=frequency=440:duration=2:sample_rate=22050" \
  -vf "drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf:text='At the dentist':fontsize=20:fontcolor=0x1d2731:x=(w-tw)/2:y=(h-th)/2" -c:v libx264 -preset veryslow -crf 34 -pix_fmt yuv420p \
  -c:a aac -b:a 24k -af volume=0.05 -movflags +faststart -shortest "$OUT/dentist.mp4"

# The imported tour: Pannellum JSON → Dossier's experience format.
BIN=${DOSSIER_BIN:-.build-experiences/debug/dossier}
if [ -x "$BIN" ]; then
  "$BIN" experiences import pannellum Examples/demo/data/experiences/sources/park-tour.pannellum.json \
    --title "Walk in the park" --description "Imported from a Pannellum tour: a gate and a pond." \
    --output Examples/demo/data/experiences/park-walk.json
fi
du -ch "$OUT"/* | tail -1
