var APP_DATA = {
  "scenes": [
    {
      "id": "0-hall",
      "name": "Hall",
      "levels": [
        { "tileSize": 256, "size": 256, "fallbackOnly": true },
        { "tileSize": 512, "size": 512 }
      ],
      "faceSize": 512,
      "initialViewParameters": { "pitch": 0, "yaw": 0, "fov": 1.5707963267948966 },
      "linkHotspots": [
        { "yaw": 1.5707963267948966, "pitch": -0.2617993877991494, "rotation": 0, "target": "1-waiting room" }
      ],
      "infoHotspots": [
        { "yaw": -0.5, "pitch": 0.1, "title": "Reception", "text": "Say hello here" }
      ]
    },
    {
      "id": "1-waiting room",
      "name": "Waiting room",
      "levels": [ { "tileSize": 512, "size": 512 } ],
      "faceSize": 512,
      "initialViewParameters": { "pitch": 0, "yaw": 3.141592653589793, "fov": 1.5 },
      "linkHotspots": [
        { "yaw": -3.141592653589793, "pitch": 0, "rotation": 0.7853981633974483, "target": "0-hall" }
      ],
      "infoHotspots": []
    }
  ],
  "name": "Clinic tour",
  "settings": {
    "mouseViewMode": "drag",
    "autorotateEnabled": true,
    "fullscreenButton": false,
    "viewControlButtons": false
  }
};
